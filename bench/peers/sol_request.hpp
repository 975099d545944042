// Owns: the speed-of-light server's request reader: just enough HTTP/1.1 to
// route a request (method, path, Content-Length, Sec-WebSocket-Key) on a
// keep-alive connection. It trusts its input: this server only ever talks
// to sluice-bench.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice::peers {

struct SolRequest {
  std::string_view method;
  std::string_view path;
  std::string_view ws_key;  // Sec-WebSocket-Key; empty when it is not an upgrade
  std::string_view body;    // Content-Length bytes after the head
  std::size_t size = 0;     // head and body
};

// Reads the request at the start of `in`. False while it is incomplete.
[[nodiscard]] bool read_request(std::string_view in, SolRequest& out);

}  // namespace sluice::peers
