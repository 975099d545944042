// Owns: H2TestClient, an HTTP/2 client made of nghttp2's client API over
// loopback TCP (h2c), for tests that need a peer that does exactly what
// they say: hold a stream's window shut, open one stream too many, send a
// flood of SETTINGS, PINGs or resets, or raw frames nghttp2 would never
// make. pump() moves bytes both ways until a condition holds.
#pragma once

#include <nghttp2/nghttp2.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::transport::test {

using namespace std::chrono_literals;

struct ClientStream {
  // The value of the response's field `name` (lower case), empty if none.
  [[nodiscard]] std::string header(std::string_view name) const {
    for (const auto& [field, value] : headers) {
      if (field == name) return value;
    }
    return {};
  }

  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // the response's fields, as received
  int headers_frames = 0;  // raw mode: HEADERS frames seen (not decoded)
  std::string body;
  bool closed = false;
  std::uint32_t error_code = 0;  // RST_STREAM's, or the close's
  std::string outbox;            // request body bytes not yet sent
  bool end_after_outbox = false;
};

struct H2ClientOptions {
  std::uint32_t initial_window = 65535;  // SETTINGS_INITIAL_WINDOW_SIZE we announce
  bool auto_window = true;               // false: the test consumes by hand
  // Raw: the test writes every byte itself (write_raw); nghttp2 neither
  // sends nor parses, and the server's frames are only scanned for their
  // type (GOAWAY and RST_STREAM codes, HEADERS seen).
  bool raw = false;
  // SO_RCVBUF set before connecting (a slow reader's small buffer); 0: the
  // kernel's default.
  int receive_buffer = 0;
};

class H2TestClient {
 public:
  H2TestClient(std::uint16_t port, const H2ClientOptions& options = {});
  ~H2TestClient();
  H2TestClient(const H2TestClient&) = delete;
  H2TestClient& operator=(const H2TestClient&) = delete;

  [[nodiscard]] bool ok() const { return session_ != nullptr && fd_ >= 0; }
  [[nodiscard]] nghttp2_session* session() const { return session_; }
  [[nodiscard]] int fd() const { return fd_; }

  // Submits a request; `body` is sent as DATA (ending the stream unless
  // `keep_open`). Returns the stream id (<= 0 on failure).
  std::int32_t request(const std::string& method, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& headers = {},
                       const std::string& body = "", bool keep_open = false, const std::string& protocol = "");
  // More DATA on an open request stream.
  void send(std::int32_t stream, const std::string& bytes, bool end);
  // Gives the server window for bytes received on `stream`.
  void consume(std::int32_t stream, std::size_t bytes);

  // Sends what nghttp2 has queued. False when the socket failed.
  bool flush();
  // Writes bytes straight to the socket, around nghttp2.
  void write_raw(std::string_view bytes);
  // Flushes, reads and feeds nghttp2 until `done()` or the connection ends;
  // false when `limit` passed or the connection ended first without `done()`.
  bool pump(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s);
  // A slow reader's read: flushes, waits up to `limit` for bytes, reads at
  // most `max_bytes` in one recv and feeds nghttp2. False when nothing came
  // or the connection ended.
  bool read_some(std::size_t max_bytes, std::chrono::milliseconds limit = 2s);

  ClientStream& stream(std::int32_t id) { return streams_[id]; }
  [[nodiscard]] bool goaway() const { return goaway_; }
  [[nodiscard]] std::uint32_t goaway_code() const { return goaway_code_; }
  // The server closed the connection.
  [[nodiscard]] bool eof() const { return eof_; }
  // PINGs the server sent (nghttp2 answers each).
  [[nodiscard]] int pings() const { return pings_; }

 private:
  static ssize_t on_send(nghttp2_session*, const std::uint8_t* data, std::size_t length, int, void* self);
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* self);
  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t stream, const std::uint8_t* data,
                     std::size_t length, void* self);
  static int on_close(nghttp2_session*, std::int32_t stream, std::uint32_t error_code, void* self);
  static ssize_t read_body(nghttp2_session*, std::int32_t stream, std::uint8_t* buf, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source*, void* self);
  bool read_available();
  void scan_raw(std::string_view bytes);

  int fd_ = -1;
  nghttp2_session* session_ = nullptr;
  bool raw_ = false;
  std::string out_;  // bytes nghttp2 made, not yet written
  std::string in_;   // raw mode: bytes of a frame not yet whole
  std::map<std::int32_t, ClientStream> streams_;
  bool goaway_ = false;
  std::uint32_t goaway_code_ = 0;
  bool eof_ = false;
  int pings_ = 0;
};

// A raw HTTP/2 frame: 9-byte header and payload.
std::string h2_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload);

}  // namespace sluice::transport::test
