// Owns: the authorizer sluiced installs with auth.mode=jwt, built from
// AuthConfig with the token library (src/auth): a request's token is
// verified once, when it arrives (Action::connect), and what it grants is
// kept in the connection's data, with its exp as the time the stream it
// opens ends; a /ws refresh (Action::refresh) replaces them with a new
// token of the same subject; each subscribe and publish is then judged
// against those grants and the anonymous ones, and counted against the
// rate limits. Nothing here runs per event.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "sluice/authorization.hpp"
#include "sluice/config.hpp"

namespace sluice::server {

// Gives the installed authorizer new rate limits (auth.rate.*, but for
// the table's size), from any thread; its next check uses them.
using RateRetune = std::function<void(const AuthRateConfig&)>;

// Builds the authorizer `config.auth` describes, and in `retune` (when
// given) the way to change its rates on a reload. Returns one line naming
// the config key at fault (a short secret, an unreadable key file, a bad
// pattern), or nullopt.
[[nodiscard]] std::optional<std::string> make_token_authorizer(const Config& config, Authorizer& out,
                                                               RateRetune* retune = nullptr);

}  // namespace sluice::server
