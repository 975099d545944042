// Owns: what the HTTP/2 engine and its owner exchange: the limits (each a
// config key), a request as it arrives on a stream, and H2Handler, the
// events a session hands its owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "conn/out_queue.hpp"

namespace sluice::transport {

struct H2Limits {
  // h2.max_concurrent_streams (1-10000): streams a peer may have open at
  // once (SETTINGS_MAX_CONCURRENT_STREAMS); one more is refused with
  // RST_STREAM(REFUSED_STREAM).
  std::uint32_t max_concurrent_streams = 100;
  // h2.max_header_list_bytes (256-1 MiB): a request's header list, counted
  // as RFC 9113 does (name + value + 32 per field), announced as
  // SETTINGS_MAX_HEADER_LIST_SIZE; past it the request gets 431.
  std::uint32_t max_header_list_bytes = 16384;
  // http.max_headers: header fields of one request (431 past it).
  std::uint32_t max_headers = 64;
  // h2.max_frames_per_second (10-1000000): frames that carry no request or
  // body (see FrameMeter) a peer may send per second; past it the session
  // ends with GOAWAY(ENHANCE_YOUR_CALM).
  std::uint32_t max_frames_per_second = 1000;
  // http.max_body: a request body (413 past it). A WebSocket stream
  // (extended CONNECT) is a stream, not a body, and is not counted.
  std::size_t max_body = std::size_t{1} << 20;
  // h2.stream_window (1 KiB-16 MiB): bytes a peer may send on one stream
  // before the owner consumes them: the stream's receive budget.
  std::uint32_t stream_window = 65535;
  // h2.connection_window (64 KiB-1 GiB): the same across all streams.
  std::uint32_t connection_window = 1 << 20;
  // h2.max_session_bytes (64 KiB-64 MiB): what nghttp2 may hold for one
  // connection (streams, header tables, queued frames); an allocation past
  // it ends that connection.
  std::size_t max_session_bytes = std::size_t{1} << 20;
  // send.budget_bytes and friends: each stream's outgoing queue. A stream
  // whose flow-control window is closed holds its queue, and its
  // slow-consumer policy acts on it like on a slow TCP subscriber.
  conn::OutQueueLimits stream_send;
  // Announce SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441): clients may open
  // WebSocket streams by extended CONNECT. An owner that does not carry
  // them leaves it off, so that a browser keeps its WebSockets on HTTP/1.1
  // rather than trying them here.
  bool extended_connect = true;
};

struct H2Header {
  std::string_view name;  // lower case, as HTTP/2 requires
  std::string_view value;
};

// A request whose header block has arrived whole. The views live until the
// on_request() call returns.
struct H2Request {
  std::int32_t stream = 0;
  std::string_view method;     // :method
  std::string_view scheme;     // :scheme (empty for CONNECT without :protocol)
  std::string_view authority;  // :authority
  std::string_view path;       // :path
  std::string_view protocol;   // :protocol of an extended CONNECT (RFC 8441): "websocket"
  std::span<const H2Header> headers;
  bool end_stream = false;  // no body follows

  // The first header named `name` (lower case), or empty.
  [[nodiscard]] std::string_view header(std::string_view name) const;
};

// The session's events, called from inside receive() and flush(). A
// handler may call the session's stream functions (respond, queue, wake,
// finish, reset, consume) from them.
class H2Handler {
 public:
  // A request's headers arrived. The handler answers with respond(), at
  // once or later; until it does, nothing goes out on the stream.
  virtual void on_request(const H2Request& request) = 0;
  // Body bytes of a request (or the bytes of an extended CONNECT stream).
  // The handler calls consume(stream, n) once it has taken them: until
  // then they count against the stream's window, and a peer that fills it
  // must wait.
  virtual void on_data(std::int32_t stream, std::string_view bytes) = 0;
  // The peer finished sending on the stream (END_STREAM).
  virtual void on_end(std::int32_t stream) = 0;
  // The stream is gone (finished, reset by either side, or the session
  // ended); `error_code` is HTTP/2's (0: NO_ERROR). Its queue is released
  // after this returns; the stream id means nothing any more.
  virtual void on_close(std::int32_t stream, std::uint32_t error_code) = 0;
  // The request body passed H2Limits::max_body (`max_body` bytes): the
  // handler may answer the stream now (respond(), queue, finish()), say
  // with a line naming the limit; the session then stops taking the body
  // and closes the stream, and answers a bare 413 itself if the handler
  // did not. on_close() follows at once.
  virtual void on_body_too_large(std::int32_t stream, std::size_t max_body) { (void)stream, (void)max_body; }
  // A request's header list passed h2.max_header_list_bytes, or its fields
  // http.max_headers (`fields`); `limit` is that key's value. The handler
  // may answer the stream now (respond(), queue, finish()) with a line
  // naming the limit; the session answers a bare 431 itself if it did not.
  // No other event of the stream follows: its request is never told.
  virtual void on_headers_too_large(std::int32_t stream, bool fields, std::size_t limit) {
    (void)stream, (void)fields, (void)limit;
  }

 protected:
  ~H2Handler() = default;
};

}  // namespace sluice::transport
