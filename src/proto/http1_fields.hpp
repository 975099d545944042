// Owns: the checks on header fields: the syntax of one field line
// (RFC 9112 5) and, once the header section is whole, the framing and
// connection rules that depend on several fields (RFC 9112 6 and 9.3).
// Private to src/proto.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "proto/http1.hpp"

namespace sluice::proto::http1::detail {

struct FieldLine {
  int http_status = 0;  // 0 when acceptable, else 400
  const char* reason = "";
  std::size_t name_length = 0;
  std::size_t value_begin = 0;  // offset in the line, OWS skipped
  std::size_t value_length = 0;
};

// `line` is one non-empty field line without its CRLF.
[[nodiscard]] FieldLine parse_field_line(std::string_view line);

struct Framing {
  int http_status = 0;  // 0 when acceptable, else 400, 413 or 501
  const char* reason = "";
  bool chunked = false;
  std::size_t content_length = 0;  // 0 when there is no body or it is chunked
  bool keep_alive = false;
  bool expect_continue = false;  // Expect: 100-continue, in HTTP/1.1, with a body to come
};

// Decides how the body is delimited and whether the connection stays open.
[[nodiscard]] Framing decide_framing(std::span<const Header> headers, int version_minor,
                                     const Limits& limits);

}  // namespace sluice::proto::http1::detail
