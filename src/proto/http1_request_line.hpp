// Owns: parse_request_line, which checks one request line (RFC 9112 3:
// method SP request-target SP HTTP-version) and finds its parts.
// Private to src/proto.
#pragma once

#include <cstddef>
#include <string_view>

#include "proto/http1.hpp"

namespace sluice::proto::http1::detail {

struct RequestLine {
  int http_status = 0;  // 0 when the line is acceptable, else 400 or 505
  const char* reason = "";
  Method method = Method::other;
  std::size_t method_length = 0;
  std::size_t target_begin = 0;  // offset in the line: the path, for absolute-form
  std::size_t target_length = 0;
  std::size_t authority_begin = 0;  // absolute-form's host[:port]; length 0 for origin-form
  std::size_t authority_length = 0;
  int version_minor = 0;
};

// `line` is the request line without its CRLF.
[[nodiscard]] RequestLine parse_request_line(std::string_view line);

[[nodiscard]] Method method_from_text(std::string_view text);

// Whether the part of a request line that has arrived could still begin a
// valid one: its method so far is a non-empty token. A peer that does not
// speak HTTP (a TLS ClientHello, binary garbage) is then refused at once,
// instead of holding the connection until a CRLF that never comes.
[[nodiscard]] bool plausible_request_line_start(std::string_view partial);

}  // namespace sluice::proto::http1::detail
