// Owns: the client's reading of an HTTP/1.1 response head (status line and
// the few header fields a client acts on). Sans-IO: the caller accumulates
// bytes and calls again until the head is complete.
//
// Lenient where a client may be (a bare LF ends a line) and quick to refuse
// a peer that is not speaking HTTP at all: five bytes are enough to tell.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

namespace sluice::client::detail {

// Views into the bytes given to parse_response_head(); absent fields are empty.
struct ResponseHead {
  int status = 0;
  std::size_t size = 0;  // bytes of the head, its final empty line included
  std::string_view content_type;
  std::string_view content_length;
  std::string_view transfer_encoding;
  std::string_view retry_after;
  std::string_view upgrade;
  std::string_view connection;
  std::string_view websocket_accept;
};

enum class HeadStatus : unsigned char {
  need_more,
  complete,
  not_http,   // the bytes do not start with "HTTP/"
  too_long,   // no end of head within max_size bytes
  malformed,  // a bad status line or header line
};

[[nodiscard]] HeadStatus parse_response_head(std::string_view bytes, std::size_t max_size, ResponseHead& out);

// The media type without parameters, compared case-insensitively.
[[nodiscard]] bool media_type_is(std::string_view content_type, std::string_view wanted);
// True when the comma-separated `list` holds `token` (case-insensitive).
[[nodiscard]] bool list_has_token(std::string_view list, std::string_view token);
// Retry-After as delta-seconds; 0 when absent or an HTTP-date (not honoured).
[[nodiscard]] std::chrono::milliseconds retry_after_delay(std::string_view value);
// A one-line description of `status` for errors.
[[nodiscard]] const char* head_status_text(HeadStatus status);

}  // namespace sluice::client::detail
