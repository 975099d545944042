// Owns: the authorizer sluiced installs with auth.mode=jwt, built from
// AuthConfig with the token library (src/auth): a request's token is
// verified once, when it arrives (Action::connect), and what it grants is
// kept in the connection's data, with its exp as the time the stream it
// opens ends. A later request on the same connection (a kept-alive
// HTTP/1.1 connection, another HTTP/2 stream) carrying the same token is
// not verified again: the connection's data keeps the token's fingerprint
// (auth/token_fingerprint.hpp) beside the identity, and only the time
// claims are judged again, at that request's time; a /ws refresh (Action::refresh) replaces them with a new
// token of the same subject; each subscribe and publish is then judged
// against those grants and the anonymous ones, and counted against the
// rate limits. Nothing here runs per event.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sluice/authorization.hpp"
#include "sluice/config.hpp"

namespace sluice::server {

// Gives the installed authorizer new rate limits (auth.rate.*, but for
// the table's size), from any thread; its next check uses them.
using RateRetune = std::function<void(const AuthRateConfig&)>;

// How many tokens the authorizer has verified (signature and claims) and
// how many requests it let reuse their connection's verified token instead.
struct TokenChecks {
  std::uint64_t verified = 0;
  std::uint64_t reused = 0;
};
// Reads those counts, from any thread.
using TokenCheckCounts = std::function<TokenChecks()>;

// Builds the authorizer `config.auth` describes, in `retune` (when given)
// the way to change its rates on a reload, and in `counts` (when given)
// the way to read its TokenChecks. Returns one line naming the config key
// at fault (a short secret, an unreadable key file, a bad pattern), or
// nullopt.
[[nodiscard]] std::optional<std::string> make_token_authorizer(const Config& config, Authorizer& out,
                                                               RateRetune* retune = nullptr,
                                                               TokenCheckCounts* counts = nullptr);

}  // namespace sluice::server
