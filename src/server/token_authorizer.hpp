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
//
// A reload may bring new keys and claim rules (auth.jwt_secret, the key
// files, auth.audience, auth.issuer, auth.clock_skew_ms): they are loaded
// whole beside the running ones, with a fingerprinter of their own, and
// swapped in. Each loop holds the set it checks with and looks at a shared
// generation number (one atomic load per request) to see that a reload
// replaced it; it takes the set's mutex once per reload. A connection's
// fingerprint made under the old set matches nothing the new one makes, so
// its next request is verified under the new keys.
#pragma once

#include <optional>
#include <string>

#include "metrics/registry.hpp"
#include "server/live_settings.hpp"
#include "sluice/authorization.hpp"
#include "sluice/config.hpp"

namespace sluice::server {

// Builds the authorizer `config.auth` describes. With `metrics`, what it
// makes of each request's token (metrics::TokenOutcome) is counted in the
// cells of the loop that asked (AuthRequest::loop). With `reload`, the way
// a reload gives it new keys, claim rules and rates: `prepare` loads the
// keys the auth.* settings name (their files read again) into a verifier
// beside the running one, `apply` swaps it in whole and sets the rates;
// the rate table and its buckets stay. Returns one line naming the config
// key at fault (a short secret, an unreadable key file, a bad pattern), or
// nullopt.
[[nodiscard]] std::optional<std::string> make_token_authorizer(const Config& config, Authorizer& out,
                                                               metrics::Registry* metrics = nullptr,
                                                               LiveSettingsHook* reload = nullptr);

}  // namespace sluice::server
