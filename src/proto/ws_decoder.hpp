// Owns: Decoder, the incremental, push-driven WebSocket frame decoder
// (RFC 6455 §5, with permessage-deflate from RFC 7692): bytes in, at most
// one event out per call, and for every protocol violation the close code
// the connection must be failed with.
//
// Memory: a decoder holds one message buffer that grows as a message needs
// (never past max_message_size) and is reused, a 125-byte control payload
// buffer, and, once deflate is negotiated, one Inflater. With an account,
// every growth past buf::kRestingCapacity (or past nothing: see
// DecoderLimits::uncharged) is charged to it first, and so is
// all of the Inflater's zlib state; a refused charge fails the message with
// 1009 (zlib's: 1008 or 1013, deflate_refusal()), and trim() gives a large buffer back
// once its message is done. Messages up to that size allocate
// nothing after the first (buf/charged_buffer.hpp).
//
// Fail fast: a size over the limit is refused as soon as the frame header
// says so (for compressed messages, as soon as inflating passes the limit),
// and invalid UTF-8 in a text message is refused in the fragment that holds
// the bad byte, not when the message ends.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "buf/charged_buffer.hpp"
#include "proto/utf8.hpp"
#include "proto/ws_close.hpp"
#include "proto/ws_deflate.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::proto::ws {

enum class Role : std::uint8_t {
  server,  // decodes what a client sends: every frame must be masked
  client,  // decodes what a server sends: no frame may be masked
};

struct DecoderLimits {
  std::size_t max_message_size = std::size_t{1} << 20;  // after inflating
  Role role = Role::server;
  // Charged for the message buffer past `uncharged` bytes; null: not charged.
  buf::MemoryAccount* account = nullptr;
  // buf::kRestingCapacity for a connection's one decoder; 0 where one
  // account holds a decoder per stream (HTTP/2), so that what each keeps
  // at rest is charged too.
  std::size_t uncharged = buf::kRestingCapacity;
};

enum class DecodeStatus : std::uint8_t {
  need_more,  // all of the input was used; no event yet
  message,    // a whole text or binary message (fragments joined, inflated)
  ping,       // answer with a pong carrying the same payload
  pong,
  close,      // the peer's close frame: code and reason, both validated
  error,      // fail the connection: send a close frame with close_code
};

struct DecodeResult {
  DecodeStatus status = DecodeStatus::need_more;
  // Input bytes used by this call. After an event, feed the rest again.
  std::size_t consumed = 0;
  Opcode opcode = Opcode::continuation;  // message: text or binary
  // message, ping, pong: the payload; close: the reason (may be empty).
  // Points into the decoder; valid until the next feed() call.
  std::span<const char> payload;
  // close: the peer's code (no_status for an empty close frame);
  // error: the code to send, 1002, 1007, 1009 or 1011.
  CloseCode close_code = CloseCode::no_status;
  const char* error = nullptr;  // error: what was wrong, a static string for logs
};

// The errors (1009) of a message over DecoderLimits::max_message_size, as
// sent or once inflated: the same pointers each time, so that a caller can
// name its own key for the limit.
inline constexpr char kMessageOverSizeLimit[] = "message over the size limit";
inline constexpr char kMessageInflatesOverSizeLimit[] = "message inflates past the size limit";

// What a message whose buffer could not grow is answered with: 1009 and the
// key to raise when a memory limit refused it, 1011 when the server is out
// of memory. The decoder's own answer, and the stream's when a message it
// keeps (held for pool room, or for a decision) cannot be charged.
struct MemoryRefusal {
  CloseCode code;
  const char* reason;  // a static string
};
[[nodiscard]] MemoryRefusal memory_refusal(buf::Growth growth);
// What a connection whose zlib state the account refused is closed with:
// 1008 naming limits.connection_bytes (the client's own share is spent),
// 1013 naming limits.server_bytes (the server's is: come back later).
[[nodiscard]] MemoryRefusal deflate_refusal(buf::ChargeStatus status);

// Usage: give each chunk read from the socket to feed() until it returns
// need_more, advancing past `consumed` after each event:
//   while (true) { auto r = d.feed(in); in = in.subspan(r.consumed); ...;
//                  if (r.status == need_more) break; }
// Control frames may arrive between the fragments of a message; they are
// reported at once and leave the message being assembled untouched.
//
// After an error, feed() consumes nothing and returns the same error again.
// After a close event the peer may send nothing more (§5.5.1): feed()
// discards any later bytes and returns need_more.
class Decoder {
 public:
  explicit Decoder(const DecoderLimits& limits = {});

  // Turns permessage-deflate on with the negotiated parameters (from this
  // side's point of view, chosen by `role`); call before the first feed().
  // Without it, a frame with RSV1 is a protocol error. Returns false when
  // the Inflater could not be allocated (deflate then stays off). With an
  // account, zlib's state is charged to it (proto/zlib_memory.hpp); when
  // the account refused it, the extension was negotiated all the same, so
  // the decoder fails (deflate_refusal()) at the peer's first frame: until
  // it sends one it holds nothing, and what is sent to it may go
  // uncompressed.
  [[nodiscard]] bool set_deflate(const DeflateParams& params);
  // Bytes of zlib state charged for the inflater now.
  [[nodiscard]] std::size_t inflater_charged() const { return inflater_ ? inflater_->charged() : 0; }

  // Decodes from `bytes`, stopping after the first event. The bytes are
  // only read during the call.
  [[nodiscard]] DecodeResult feed(std::span<const char> bytes);

  // Bytes held for message assembly (for memory accounting and tests).
  [[nodiscard]] std::size_t buffer_capacity() const { return message_.capacity(); }
  // Between messages, gives back a buffer a large message grew (the last
  // message's payload is then gone). Does nothing mid-message.
  void trim() {
    if (!in_message_) message_.trim();
  }
  // Between frames, gives back the buffer whatever its size: for a
  // decoder whose resting buffer is charged (one of many streams) and that
  // was sent nothing for a while.
  void rest() {
    if (!mid_message()) message_.trim(0);
  }
  // A frame or a fragmented message has begun and is not complete yet: the
  // caller bounds how long it may stay so (a client that never finishes a
  // message would hold its buffer for good).
  [[nodiscard]] bool mid_message() const {
    return in_message_ || header_size_ > 0 || state_ == State::length || state_ == State::mask_key ||
           state_ == State::payload;
  }

 private:
  enum class State : std::uint8_t { head, length, mask_key, payload, closed, failed };

  DecodeResult step(std::span<const char>& in);
  DecodeResult on_head(std::span<const char>& in);
  DecodeResult on_length(std::span<const char>& in);
  DecodeResult on_mask_key(std::span<const char>& in);
  DecodeResult on_payload(std::span<const char>& in);

  [[nodiscard]] bool collect(std::span<const char>& in, std::size_t want);
  [[nodiscard]] std::size_t length_end() const;
  [[nodiscard]] const char* check_head() const;
  [[nodiscard]] const char* check_data_head(bool rsv1) const;
  DecodeResult on_length_known();
  DecodeResult begin_payload();
  void start_message();
  void unmask(char* data, std::size_t n) const;
  DecodeResult take(std::span<const char> chunk);
  DecodeResult take_control(std::span<const char> chunk);
  DecodeResult take_plain(std::span<const char> chunk);
  DecodeResult take_compressed(std::span<const char> chunk);
  InflateStatus inflate_into_message(std::span<const char> in, bool last);
  DecodeResult after_inflate(InflateStatus status, std::size_t text_start);
  DecodeResult finish_frame();
  DecodeResult finish_message();
  DecodeResult control_event();
  DecodeResult close_event(std::span<const char> payload);
  DecodeResult fail(CloseCode code, const char* why);
  DecodeResult refuse(buf::Growth growth);

  DecoderLimits limits_;
  State state_ = State::head;
  std::array<char, kMaxHeaderSize> header_{};
  std::size_t header_size_ = 0;

  // The frame being read.
  Opcode frame_opcode_ = Opcode::continuation;
  bool frame_fin_ = false;
  bool frame_rsv1_ = false;
  bool frame_masked_ = false;
  MaskKey mask_{};
  std::uint64_t frame_size_ = 0;
  std::uint64_t frame_done_ = 0;

  // The message being assembled (its flags after its buffer, and the
  // control buffer after them: 16 bytes less padding a connection).
  buf::ChargedBuffer message_;
  Utf8Validator utf8_;
  bool in_message_ = false;
  bool compressed_ = false;
  Opcode message_opcode_ = Opcode::continuation;
  buf::Growth inflate_growth_ = buf::Growth::ok;  // why the inflater's last growth failed

  std::array<char, kMaxControlPayload> control_{};
  std::unique_ptr<Inflater> inflater_;
  DecodeResult failure_;
};

}  // namespace sluice::proto::ws
