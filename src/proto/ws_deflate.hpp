// Owns: permessage-deflate (RFC 7692): the negotiated parameters, the
// server's side of the offer/response negotiation, the per-connection
// Inflater and the Deflater that compresses shared fan-out messages.
//
// Trade-off, decided here for the whole server: a published event is
// compressed once and the same frame goes to every subscriber, so
// the compressor cannot keep a per-connection LZ77 window. The server
// therefore always answers with server_no_context_takeover: each message is
// compressed on its own. That costs ratio on streams of small similar events
// (the window would have let an event point back at the previous one) and
// saves one 256 KiB zlib deflate state per connection; the only per-connection
// compression memory left is the Inflater for what the client sends.
//
// For the same reason an offer that asks for a server window smaller than
// the server's own (server_max_window_bits below max_server_window_bits) is
// declined rather than accepted: the shared frame is built with one window
// size for everyone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "buf/memory_account.hpp"
#include "buf/sink.hpp"
#include "proto/zlib_memory.hpp"

struct z_stream_s;

namespace sluice::proto::ws {

// Window sizes are base-2 logarithms, 8..15. zlib's raw deflate cannot use a
// 256-byte window, so a window of 8 is compressed with 9 and inflated with 9
// (a larger inflate window accepts every stream a smaller one does).
inline constexpr int kMinWindowBits = 8;
inline constexpr int kMaxWindowBits = 15;

struct DeflateParams {
  bool enabled = false;
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  int server_max_window_bits = kMaxWindowBits;
  int client_max_window_bits = kMaxWindowBits;
  // The accepted offer named server_max_window_bits, so the response must
  // carry it (§7.1.2.1); Firefox fails the connection if a response carries
  // it unasked, so it is sent only then.
  bool server_max_window_bits_offered = false;
};

// Reads the Sec-WebSocket-Extensions value `offers` (comma-separated
// extensions, each with ';'-separated parameters, values as tokens or
// quoted strings) and accepts the first permessage-deflate offer whose
// parameters are all known, valid and not repeated, and whose
// server_max_window_bits (if any) is at least `max_server_window_bits`
// (clamped to 9..15). Returns enabled == false when no offer is acceptable
// or the header is malformed: the connection then runs uncompressed.
// The result always has server_no_context_takeover; client_no_context_takeover
// only when the client offered it; client_max_window_bits is the offered
// value, else 15.
[[nodiscard]] DeflateParams negotiate_deflate(std::string_view offers, int max_server_window_bits = kMaxWindowBits);

// Writes the Sec-WebSocket-Extensions response value for `params` (which
// must be enabled), e.g. "permessage-deflate; server_no_context_takeover".
// Returns false when the sink refused bytes.
[[nodiscard]] bool write_deflate_response(const DeflateParams& params, buf::Sink& out);

namespace detail {
struct InflateStreamDeleter {
  void operator()(z_stream_s* stream) const;
};
struct DeflateStreamDeleter {
  void operator()(z_stream_s* stream) const;
};
}  // namespace detail

enum class InflateStatus : std::uint8_t {
  ok,          // all input consumed and all output written
  need_space,  // `out` is full: call again with more room and the unconsumed input
  too_big,     // the message would inflate past max_message_size (close 1009)
  corrupt,     // not a valid deflate stream (close 1007)
  no_memory,   // zlib could not allocate its window: the account refused it
              // (refusal()), or the heap did (close 1011)
};

struct InflateResult {
  InflateStatus status = InflateStatus::ok;
  std::size_t consumed = 0;  // input bytes used
  std::size_t produced = 0;  // bytes written to the front of `out`
};

// Inflates the messages of one connection. A message is fed with any number
// of inflate() calls and ended with finish(), which appends the
// 00 00 ff ff tail that the sender stripped (§7.2.2).
//
// The limit is hard: output stops at max_message_size bytes per message; if
// the stream still has more, the answer is too_big, found by inflating at
// most one byte past the limit into an internal scratch byte, so a
// compression bomb never makes anyone allocate more than the limit.
class Inflater {
 public:
  // `window_bits` is the peer's window (8..15); with `no_context_takeover`
  // the window is forgotten after each message. Check ok().
  // A smaller window saves memory, but zlib checks a back-reference against
  // it only when the reference reaches into output of an earlier call, so a
  // peer that breaks its declared window may or may not be refused (as
  // corrupt) depending on how its bytes arrive.
  // zlib's state, and its window when first used, are charged to `account`
  // (null: nothing charged; it must outlive the Inflater).
  Inflater(int window_bits, bool no_context_takeover, std::size_t max_message_size,
           buf::MemoryAccount* account = nullptr);

  [[nodiscard]] bool ok() const { return stream_ != nullptr; }
  // Bytes of zlib's state charged now.
  [[nodiscard]] std::size_t charged() const { return memory_.charged(); }
  // Which limit refused zlib memory (ok: none did): why ok() is false, or
  // why an answer was no_memory.
  [[nodiscard]] buf::ChargeStatus refusal() const { return memory_.refusal(); }

  // Inflates compressed bytes of the current message into `out`. Neither
  // span is kept after the call. After too_big, corrupt or no_memory the
  // Inflater is unusable.
  [[nodiscard]] InflateResult inflate(std::span<const char> in, std::span<char> out);

  // Inflates the tail that ends the current message; on need_space call
  // again with more room. Any answer but need_space ends the message, and
  // the next inflate() starts a new one.
  [[nodiscard]] InflateResult finish(std::span<char> out);

 private:
  [[nodiscard]] InflateResult probe_past_limit(std::span<const char> in);
  [[nodiscard]] InflateResult run(std::span<const char> in, std::span<char> out);
  void end_message();
  void reset_keeping_window();

  ZlibMemory memory_;  // before stream_: zlib frees through it as the stream ends
  std::unique_ptr<z_stream_s, detail::InflateStreamDeleter> stream_;
  std::size_t limit_;
  std::size_t produced_ = 0;   // bytes of the current message so far
  std::size_t tail_sent_ = 0;  // bytes of the 4-byte tail already inflated
  bool no_context_takeover_;
  bool stream_ended_ = false;  // the sender closed the stream (BFINAL)
  // finish() feeds the tail, not the sender's bytes: a final block the
  // sender cut short of its last byte, which the tail's first completes,
  // leaves the tail's other bytes behind it, not the sender's data.
  bool in_tail_ = false;
};

struct DeflateOutput {
  bool ok = false;
  std::span<const char> bytes;  // valid until the next compress() call
};

// Compresses whole messages, each on its own (no context takeover), for a
// frame that many connections share. Memory: one zlib deflate state, made at
// construction, and one output buffer that grows to the largest compressed
// message seen and is then reused.
class Deflater {
 public:
  // `window_bits` 8..15 (8 compresses with 9, see kMinWindowBits); `level`
  // is zlib's 0..9, or -1 for its default. Check ok().
  explicit Deflater(int window_bits = kMaxWindowBits, int level = -1);

  [[nodiscard]] bool ok() const { return stream_ != nullptr; }

  // Compresses `message` into a permessage-deflate payload (§7.2.1):
  // sync-flushed, with the trailing 00 00 ff ff removed. The frame that
  // carries it must set RSV1 on its first fragment. Returns ok == false when
  // the output buffer could not grow or `message` is 4 GiB or more.
  [[nodiscard]] DeflateOutput compress(std::span<const char> message);

 private:
  [[nodiscard]] bool grow(std::size_t capacity);

  std::unique_ptr<z_stream_s, detail::DeflateStreamDeleter> stream_;
  std::unique_ptr<char[]> out_;
  std::size_t capacity_ = 0;
};

}  // namespace sluice::proto::ws
