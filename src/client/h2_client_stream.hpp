// Owns: H2ClientStream, one HTTP/2 request on a connection of its own, for
// an SSE stream over HTTP/2: the client preface, the GET, the response
// head, and the body's bytes as they arrive. Sans-IO over nghttp2's client
// session: bytes in, head and body out, bytes to send out (the request,
// SETTINGS acknowledgements, window updates, PING answers).
//
// Bounded: the response head may hold kMaxHeadBytes of fields (past that
// the stream is reset and the answer refused), and the server may have at
// most the stream's window of body bytes in flight.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "sluice/client/url.hpp"

namespace sluice::client::detail {

class H2ClientStream {
 public:
  // Where the stream's body bytes go; false stops the feed (the reader
  // has an error of its own to report).
  class Body {
   public:
    virtual bool on_body(std::string_view bytes) = 0;

   protected:
    ~Body() = default;
  };

  struct Head {
    int status = 0;
    std::string content_type;
    std::string retry_after;
  };

  enum class Feed : std::uint8_t {
    ok,
    stopped,   // Body::on_body returned false
    too_big,   // the response head passed kMaxHeadBytes
    broken,    // the server broke HTTP/2 (error() says how)
  };

  explicit H2ClientStream(Body& body);
  ~H2ClientStream();
  H2ClientStream(const H2ClientStream&) = delete;
  H2ClientStream& operator=(const H2ClientStream&) = delete;

  // Queues the preface, SETTINGS and GET `url.target` with `headers` (lower
  // case names). False when nghttp2 refused (out of memory).
  [[nodiscard]] bool open(const Url& url, std::span<const std::pair<std::string_view, std::string_view>> headers);
  // The bytes to send now; valid until the next call. Empty: nothing due.
  [[nodiscard]] std::string_view output();
  [[nodiscard]] Feed feed(std::string_view bytes);

  [[nodiscard]] bool head_complete() const { return head_complete_; }
  [[nodiscard]] const Head& head() const { return head_; }
  // The stream has ended (END_STREAM, RST_STREAM or GOAWAY);
  // error_code() is HTTP/2's (0 for a clean end).
  [[nodiscard]] bool ended() const { return ended_; }
  [[nodiscard]] std::uint32_t error_code() const { return error_code_; }
  // The code of the server's GOAWAY, if one came: it says why the
  // connection went, where the stream's own code says only that it was
  // refused.
  [[nodiscard]] std::optional<std::uint32_t> goaway_code() const { return goaway_code_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* self);
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t stream, const std::uint8_t* data,
                     std::size_t length, void* self);
  static int on_close(nghttp2_session*, std::int32_t stream, std::uint32_t error_code, void* self);

  Body& body_;
  nghttp2_session* session_ = nullptr;
  std::int32_t stream_ = 0;
  std::string out_;
  Head head_;
  std::size_t head_bytes_ = 0;
  bool head_complete_ = false;
  bool too_big_ = false;
  bool stopped_ = false;
  bool ended_ = false;
  std::uint32_t error_code_ = 0;
  std::optional<std::uint32_t> goaway_code_;
  std::string error_;
};

}  // namespace sluice::client::detail
