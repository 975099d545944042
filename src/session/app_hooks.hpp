// Owns: AppHooks, the application's callbacks a server was given
// (Server::authorize, on_open, on_close), shared read-only by every loop once they run.
#pragma once

#include "sluice/authorization.hpp"
#include "sluice/connection_ref.hpp"

namespace sluice::session {

struct AppHooks {
  server::Authorizer authorize;
  server::OpenHandler on_open;
  server::CloseHandler on_close;
};

}  // namespace sluice::session
