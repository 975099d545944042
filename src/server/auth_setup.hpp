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

// Refuses a non-loopback listen without auth (and a non-loopback
// admin.listen without tokens), then installs what auth.mode asks for. Returns one line naming the setting at fault, or
// nullopt.
[[nodiscard]] std::optional<std::string> setup_auth(const Config& config, Server& server);

}  // namespace sluice::server
