// Owns: redact(), which makes a piece of text safe to log by cutting out
// every credential it might hold. sluice logs request lines and headers
// when something goes wrong; a token in a log is a token anyone who reads
// the log can use until it expires.
//
// What is cut (the value only; the name stays so the log still says what
// was there):
//   - the whole value of an Authorization, Proxy-Authorization or Cookie
//     header line;
//   - the credential after "Bearer ";
//   - the value of a `token=` parameter and of the `COOKIE_NAME=` cookie;
//   - anything shaped like a JWT ("eyJ" + base64url, at least two dots),
//     wherever it appears.
#pragma once

#include <string>
#include <string_view>

namespace sluice::auth {

inline constexpr std::string_view kRedacted = "[redacted]";

// `cookie_name` is auth.cookie_name (empty: only the other rules apply).
[[nodiscard]] std::string redact(std::string_view text, std::string_view cookie_name);

}  // namespace sluice::auth
