// Owns: what auth.mode means to sluiced at start. Secure by default: with
// no auth configured (auth.mode=none) it serves loopback only, so a server
// nobody meant to expose is not reachable from the network; listening
// elsewhere needs auth.mode=jwt, or auth.mode=open as an explicit "anyone
// may publish and read". With auth.mode=jwt it installs the token
// authorizer (token_authorizer.hpp); with auth.mode=callback, or jwt and
// auth.callback_url, the callback authorizer (callback_authorizer.hpp).
#pragma once

#include <optional>
#include <string>

#include "sluice/config.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

// True for 127.0.0.0/8 and "localhost".
[[nodiscard]] bool loopback_host(std::string_view host);

// Whether the auth settings hold together, as at start and at each reload:
// a non-loopback listen without auth, a non-loopback admin.listen without
// tokens, and keys only a token check reads (or a callback URL) set with no
// such check are refused. Returns one line naming the setting at fault, or
// nullopt.
[[nodiscard]] std::optional<std::string> check_auth_settings(const Config& config);

// check_auth_settings(), then installs what auth.mode asks for; the same
// answer.
[[nodiscard]] std::optional<std::string> setup_auth(const Config& config, Server& server);

}  // namespace sluice::server
