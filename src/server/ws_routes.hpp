// Owns: add_ws_route(), which gives a server a WebSocket endpoint of a
// stream type sluiced does not have (the tests' echo endpoint), without
// making it part of the public API.
#pragma once

#include "session/services.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

// Before run(): a GET of `route.path` with a valid upgrade becomes the
// stream `route.make` builds.
void add_ws_route(Server& server, session::WsRoute route);

// The inside of a server, for the library's own code.
Server::Impl& impl_of(Server& server);

}  // namespace sluice::server
