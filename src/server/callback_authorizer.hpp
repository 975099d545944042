// Owns: the authorizer sluiced installs with an authorization callback
// (auth.mode=callback, or auth.mode=jwt with auth.callback_url): each
// subscribe and publish is asked of the application's backend over HTTP
// (src/auth/callback_client.hpp) and decided later, through the hook's
// AuthReply, so the loop serves every other client while the backend
// thinks. With auth.mode=jwt the token decides first and the callback is
// asked only what the token allows.
//
// Each loop has its own CallbackClient (its sockets and timers are that
// loop's), kept by the loop's worker so that it goes after the loop's
// sessions and before the loop; the authorizer picks it by AuthRequest::loop.
#pragma once

#include <optional>
#include <string>

#include "sluice/authorization.hpp"
#include "sluice/config.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

// Builds the callback authorizer `config.auth` describes on top of `first`
// (the token authorizer, or empty), giving each of `server`'s loops its
// client. Resolves auth.callback_url (blocking: at start only). Returns one
// line naming the config key at fault, or nullopt.
[[nodiscard]] std::optional<std::string> make_callback_authorizer(const Config& config, Server& server,
                                                                  Authorizer first, Authorizer& out);

}  // namespace sluice::server
