// Owns: H2cStream, the least HTTP/2 a paced reader needs to read one SSE
// or WebSocket stream over h2c by prior knowledge: the request it writes
// first, and a frame scanner that hands on the stream's DATA and answers
// what the server asks (SETTINGS and PING acknowledgements).
//
// It announces the largest windows HTTP/2 allows, so that flow control
// never stops the server: like a client that reads its socket as fast as
// it is given bytes, what holds the server back is the reader's socket
// alone, as over HTTP/1.1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

class H2cStream {
 public:
  // The connection preface, SETTINGS, the connection's window and
  // GET `path` on stream 1 (`path` shorter than 127 bytes).
  [[nodiscard]] static std::string open(std::string_view path);
  // The same with an extended CONNECT for a WebSocket on `path` instead
  // of the GET (RFC 8441). It does not wait for the server's
  // SETTINGS_ENABLE_CONNECT_PROTOCOL: sluiced announces it in the SETTINGS
  // it sends first, and nghttp2 takes `:protocol` from the moment a server
  // has queued that setting.
  [[nodiscard]] static std::string open_websocket(std::string_view path);
  // `payload` as one DATA frame on stream 1 (a WebSocket stream's pongs
  // and close answer; at most 16 KiB).
  [[nodiscard]] static std::string data(std::string_view payload);

  // Takes the server's bytes: stream 1's DATA is appended to `body`,
  // acknowledgements to `replies`. False, with error(), when the stream
  // failed (not a 200); a reset of stream 1 or a GOAWAY is not a failure
  // of the bytes and leaves ended() true.
  bool feed(std::string_view bytes, std::string& body, std::string& replies);
  [[nodiscard]] const std::string& error() const { return error_; }
  // The server ended the stream or the connection.
  [[nodiscard]] bool ended() const { return ended_; }

 private:
  bool take_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload,
                  std::string& body, std::string& replies);

  std::string in_;  // a frame not yet whole
  std::string error_;
  bool ended_ = false;
};

}  // namespace sluice::bench
