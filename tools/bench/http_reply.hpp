// Owns: the bench's strict reader of HTTP/1.1 response heads, for publish
// replies (many pipelined on one connection), probes, the head of an event
// stream and a WebSocket upgrade. Only what the bench needs: status, Content-Length and
// Content-Type; chunked replies are refused (no peer sends them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::bench {

struct ReplyHead {
  int status = 0;
  std::size_t head_size = 0;       // bytes up to and including the blank line
  std::size_t content_length = 0;  // 0 when absent
  bool has_length = false;
  std::string_view content_type;   // views the input
};

enum class HeadStatus : std::uint8_t { need_more, ok, error };

// Parses the response head at the start of `in`. need_more until the blank
// line has arrived (or when more than 16 KiB came without one: error).
[[nodiscard]] HeadStatus parse_reply_head(std::string_view in, ReplyHead& out);

// The value of header `name` (ASCII case-insensitive) in the head at the
// start of `head`, without surrounding blanks; empty when absent. For the
// few headers ReplyHead does not keep (a WebSocket upgrade's).
[[nodiscard]] std::string_view header_value(std::string_view head, std::string_view name);

// Bytes of the whole reply (head and Content-Length body).
[[nodiscard]] inline std::size_t reply_size(const ReplyHead& head) { return head.head_size + head.content_length; }

}  // namespace sluice::bench
