// Owns: H2cStream, the least HTTP/2 a bench reader needs to read SSE
// streams, or one WebSocket stream, over h2c by prior knowledge (or over
// TLS once ALPN chose h2: the same frames, encrypted): the
// request it writes first (one GET on each of K streams of the connection,
// or an extended CONNECT on stream 1), and a frame scanner that
// hands on each stream's DATA and answers what the server asks (SETTINGS
// and PING acknowledgements, WINDOW_UPDATE as the data is taken).
//
// It announces the largest windows HTTP/2 allows and opens them again
// once half is used, so that flow control never stops the server: like a
// client that reads its socket as fast as it is given bytes, what holds
// the server back is the reader's socket alone, as over HTTP/1.1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::bench {

class H2cStream {
 public:
  // What the connection's streams carry; `index` is the stream's place in
  // open()'s order (0 is stream 1, 1 is stream 3, ...).
  class Sink {
   public:
    virtual void on_head(std::size_t index) = 0;  // answered 200
    virtual void on_data(std::size_t index, std::string_view data) = 0;
    virtual void on_end(std::size_t index) = 0;  // ended or reset by the server

   protected:
    ~Sink() = default;
  };

  // `streams` streams on the connection (at least 1).
  explicit H2cStream(std::size_t streams = 1);

  // The connection preface, SETTINGS, the connection's window and
  // GET `path` on streams 1, 3, ... (`streams` of them; one header block
  // each, so `path` must leave it under 16 KiB, the least frame size),
  // with :scheme https when the connection is TLS.
  [[nodiscard]] static std::string open(std::string_view path, std::size_t streams = 1, bool over_tls = false);
  // The same with an extended CONNECT for a WebSocket on `path` on
  // stream 1 instead of the GETs (RFC 8441). It does not wait for the
  // server's SETTINGS_ENABLE_CONNECT_PROTOCOL: sluiced announces it in the
  // SETTINGS it sends first, and nghttp2 takes `:protocol` from the moment
  // a server has queued that setting. :scheme https when over TLS.
  [[nodiscard]] static std::string open_websocket(std::string_view path, bool over_tls = false);
  // `payload` as one DATA frame on stream 1 (a WebSocket stream's pongs
  // and close answer; at most 16 KiB).
  [[nodiscard]] static std::string data(std::string_view payload);

  // Takes the server's bytes: each stream's head, DATA and end go to
  // `sink`, acknowledgements and window updates to `replies`. False, with
  // error(), when a stream failed (not a 200); a reset or a GOAWAY is not
  // a failure of the bytes.
  bool feed(std::string_view bytes, Sink& sink, std::string& replies);
  // One stream: its DATA is appended to `body`.
  bool feed(std::string_view bytes, std::string& body, std::string& replies);
  [[nodiscard]] const std::string& error() const { return error_; }
  // The server ended every stream or the connection.
  [[nodiscard]] bool ended() const { return goaway_ || ended_streams_ == unconsumed_.size(); }

 private:
  bool take_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload, Sink& sink,
                  std::string& replies);
  // The stream's place in open()'s order, or npos for one this reader did not open.
  [[nodiscard]] std::size_t index_of(std::uint32_t stream) const;
  void take_window(std::size_t index, std::size_t length, std::string& replies);
  void end_stream(std::size_t index, Sink& sink);

  std::string in_;  // a frame not yet whole
  std::string error_;
  std::uint64_t connection_unconsumed_ = 0;  // DATA bytes since the connection's last WINDOW_UPDATE
  std::vector<std::uint64_t> unconsumed_;    // the same per stream
  std::vector<bool> ended_;
  std::size_t ended_streams_ = 0;
  bool goaway_ = false;
};

}  // namespace sluice::bench
