// Owns: finding the token a request carries. In order of precedence:
//   1. `Authorization: Bearer TOKEN` (RFC 6750 §2.1), what programs send;
//   2. the cookie named by auth.cookie_name ("sluice_token"), what a
//      browser's EventSource and WebSocket carry, since neither can set a
//      header;
//   3. a `token` query parameter (RFC 6750 §2.3), a last resort for clients
//      that can do neither: URLs end up in proxy logs, browser history and
//      Referer headers, so it can be turned off (auth.query_token=0) and
//      sluice itself never logs one (see redact.hpp).
// The first source present is the one used, even if its token then fails:
// a request is judged by the credential it puts first, not by whichever of
// several happens to verify.
//
// Nothing here allocates or copies: the token is a view into the request.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "proto/http1.hpp"

namespace sluice::auth {

enum class TokenSource : std::uint8_t { none, header, cookie, query };

struct TokenLookup {
  std::string_view cookie_name = "sluice_token";  // auth.cookie_name; empty: cookies are not read
  bool query = true;                              // auth.query_token
};

struct FoundToken {
  TokenSource source = TokenSource::none;
  std::string_view token;  // a view into the request; empty when none
  // Static text when the request's credentials are ambiguous or malformed
  // (two Authorization headers, "Bearer" with nothing after it); the
  // request is then refused with 401 rather than judged on a guess.
  const char* error = nullptr;
};

[[nodiscard]] FoundToken find_token(std::span<const proto::http1::Header> headers, std::string_view query,
                                    const TokenLookup& lookup);

// The value of cookie `name` in one Cookie header ("a=1; b=2"), quotes
// removed; empty when absent.
[[nodiscard]] std::string_view cookie_value(std::string_view cookie_header, std::string_view name);

[[nodiscard]] std::string_view token_source_name(TokenSource source);

}  // namespace sluice::auth
