// Owns: FrameMeter, which reads the frame headers of a peer's HTTP/2 byte
// stream as the bytes arrive (before nghttp2 acts on them) and counts, per
// second, the frames that cost the server work without carrying a request
// or a byte of a body: SETTINGS, PING, RST_STREAM, PRIORITY, GOAWAY,
// CONTINUATION, frames of unknown type, empty DATA frames that do not end
// their stream, WINDOW_UPDATEs that open the window by less than 1 KiB
// (the "data dribble" that makes a server cut its data into tiny frames),
// DATA and WINDOW_UPDATE frames for a stream that is already closed (nghttp2
// drops them unanswered, so only reading them costs, and without a count a
// client could send them without end; those that were on their way when
// the server reset the stream itself are forgiven, up to a stream window's
// worth of small frames), and HEADERS that open a stream beyond the
// concurrency limit (each one
// answered with a RST_STREAM). A peer past h2.max_frames_per_second is a
// flood: SETTINGS and PING floods, rapid reset (HEADERS then RST_STREAM,
// CVE-2023-44487), empty-frame and CONTINUATION floods all land here, and
// the session answers GOAWAY(ENHANCE_YOUR_CALM). A PING answer is not
// counted while it answers a PING of the server's own (expect_ping_ack()):
// the server asks them, and must not call its own asking a flood.
// The streams the server itself resets for the client's errors (a
// WINDOW_UPDATE past the window, a body longer than its Content-Length)
// count as the client's resets would: a client that makes the server
// reset stream after stream costs as much as one that resets them.
//
// It also notes when a request head began and is not yet whole (head_since):
// a frame's 9-byte header cut short, or a header block (HEADERS, then
// CONTINUATIONs) whose END_HEADERS has not come. Nothing else may come on
// the connection until it ends, so a peer that sends the start of one and
// stops holds the connection as a slow HTTP/1.1 head would; its owner holds
// it to the request timeout.
//
// Sans-IO: bytes and the time in, a verdict out. It only looks; the bytes
// go on to nghttp2 unchanged.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace sluice::transport {

enum class MeterVerdict : std::uint8_t { ok, flood };

// What the session knows of the streams the client opened: the last one
// it has opened, and whether one is still open (or half closed) or gone.
class StreamStates {
 public:
  [[nodiscard]] virtual std::uint32_t last_opened() const = 0;
  [[nodiscard]] virtual bool open(std::uint32_t stream) const = 0;

 protected:
  ~StreamStates() = default;
};

class FrameMeter {
 public:
  using Clock = std::chrono::steady_clock;

  // `expect_preface`: the stream starts with the client's 24-byte preface,
  // which is skipped (nghttp2 checks it).
  FrameMeter(std::uint32_t max_per_second, bool expect_preface);

  // Scans the next `bytes` of the stream. `open_streams` and `max_streams`
  // tell which new streams the session will refuse, `streams` which of those
  // opened before these bytes are gone. Once flood is returned it is
  // returned for good.
  [[nodiscard]] MeterVerdict scan(std::span<const char> bytes, Clock::time_point now, std::size_t open_streams,
                                  std::size_t max_streams, const StreamStates& streams);

  // The server sent a PING: one PING answer from now on is not counted.
  void expect_ping_ack() { ++ping_acks_expected_; }
  // The server sent a RST_STREAM with `error_code`: one for a client's
  // error counts, and may make the next scan() a flood, and so does a
  // refused stream (the client's memory or streams are full: a stream past
  // the limit counts twice, at its HEADERS and here). Those of the server's
  // own choosing do not: an answer that ends early, a slow consumer cut
  // off, a failure of its own.
  // The frames the client had sent for `stream` before it heard of the
  // reset are forgiven (kFramesForgivenAfterReset at most).
  void reset_sent(std::uint32_t stream, std::uint32_t error_code, Clock::time_point now);

  // A stream window (64 KiB by default) of DATA frames of 16 bytes.
  static constexpr std::uint32_t kFramesForgivenAfterReset = 4096;

  [[nodiscard]] bool flooded() const { return flooded_; }
  // When the request head under way began (the scan that brought its first
  // byte); nullopt when the bytes so far end between heads.
  [[nodiscard]] std::optional<Clock::time_point> head_since() const { return head_since_; }
  // Frames whose header has been read, and of those the ones counted.
  [[nodiscard]] std::uint64_t frames() const { return frames_; }
  [[nodiscard]] std::uint64_t counted() const { return counted_; }

 private:
  void on_header(std::size_t open_streams, std::size_t max_streams);
  void on_window_increment();
  // A frame for a stream opened before this scan that the session no
  // longer has, and not forgiven.
  [[nodiscard]] bool late_frame_counts(std::uint32_t stream);
  void count(Clock::time_point now);
  void note_head(Clock::time_point now);

  std::uint32_t max_per_second_;
  std::size_t preface_left_;
  unsigned char header_[9] = {};
  std::size_t header_have_ = 0;
  unsigned char increment_[4] = {};  // a WINDOW_UPDATE's payload, as it arrives
  std::size_t increment_have_ = 0;
  bool reading_increment_ = false;
  std::size_t payload_left_ = 0;
  std::uint32_t last_stream_id_ = 0;
  std::size_t new_streams_ = 0;  // opened in this scan, not yet known to the session
  std::uint32_t known_stream_id_ = 0;       // the last stream the session opened before this scan
  struct ResetStream {
    std::uint32_t stream = 0;
    std::uint32_t frames_forgiven = 0;  // left
  };
  std::array<ResetStream, 8> reset_streams_{};  // the latest the server reset
  std::size_t next_reset_ = 0;
  const StreamStates* streams_ = nullptr;   // during a scan
  bool window_of_gone_stream_ = false;      // the WINDOW_UPDATE being read is for one

  Clock::time_point window_start_{};
  std::uint32_t in_window_ = 0;
  bool pending_count_ = false;  // the frame just read counts
  std::uint32_t ping_acks_expected_ = 0;
  bool flooded_ = false;
  bool head_payload_ = false;       // the payload being skipped is a header block's
  bool header_block_open_ = false;  // a HEADERS or PUSH_PROMISE without END_HEADERS, until a CONTINUATION ends it
  std::optional<Clock::time_point> head_since_;
  std::uint64_t frames_ = 0;
  std::uint64_t counted_ = 0;
};

}  // namespace sluice::transport
