// Owns: WsFrameScanner, the bench's strict, copy-free reader of the frames a
// WebSocket server sends (RFC 6455 §5.2, no extension negotiated).
//
// Strict because a benchmark that counts garbage as deliveries flatters the
// server: a masked frame, a set RSV bit, an unknown opcode, a length not in
// its shortest form, a fragmented or oversized control frame, a continuation
// outside a message, a new message inside one, or a message past the limit
// fails the stream. Whole frames are handed over as views into the caller's
// bytes; only a frame cut by the end of a read is copied (and the fragments
// of a fragmented message, which the bench's servers do not send), so steady
// state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

class WsFrameHandler {
 public:
  // A whole text or binary message; the view lives until the call returns.
  virtual void on_message(bool text, std::string_view payload) = 0;
  virtual void on_ping(std::string_view payload) = 0;
  virtual void on_pong(std::string_view payload) { static_cast<void>(payload); }
  // `code` is 1005 for a close frame without a payload.
  virtual void on_close(std::uint16_t code, std::string_view reason) = 0;

 protected:
  ~WsFrameHandler() = default;
};

enum class WsScanStatus : std::uint8_t { ok, closed, bad_frame, too_large };

class WsFrameScanner {
 public:
  explicit WsFrameScanner(std::size_t max_message = std::size_t{1} << 20) : max_message_(max_message) {}

  // Scans `bytes`, the next part of the stream, calling `handler` for each
  // frame it completes. After a close frame the rest is ignored and every
  // call returns closed; after an error every call returns that error.
  WsScanStatus feed(std::string_view bytes, WsFrameHandler& handler);

  [[nodiscard]] WsScanStatus status() const { return status_; }
  // What was wrong (a static text), for the report.
  [[nodiscard]] const char* error() const { return error_; }

 private:
  struct Header {
    bool fin = false;
    std::uint8_t opcode = 0;
    std::uint64_t size = 0;    // payload bytes
    std::size_t head_size = 0;
  };

  // Parses the header at the start of `in`: its size, 0 when more bytes are
  // needed, or -1 when the header is refused.
  int parse_header(std::string_view in, Header& h);
  std::size_t scan(std::string_view bytes, WsFrameHandler& handler);
  bool finish_carry(std::string_view& bytes, WsFrameHandler& handler);
  void dispatch(const Header& h, std::string_view payload, WsFrameHandler& handler);
  void take_data(const Header& h, std::string_view payload, WsFrameHandler& handler);
  void take_close(std::string_view payload, WsFrameHandler& handler);
  void fail(WsScanStatus why, const char* what);
  int refuse(WsScanStatus why, const char* what);  // fail(), then -1 for parse_header

  std::size_t max_message_;
  std::string carry_;    // a frame cut by the end of a read
  std::string message_;  // fragments of an unfinished message
  bool in_message_ = false;
  bool message_text_ = false;
  WsScanStatus status_ = WsScanStatus::ok;
  const char* error_ = "";
};

}  // namespace sluice::bench
