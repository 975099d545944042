// The scanner has three things to read: the preface (skipped), a 9-byte
// frame header, and a payload (skipped, except a WINDOW_UPDATE's 4-byte
// increment). Whether a frame counts is decided once its header is whole,
// or, for a WINDOW_UPDATE, once its increment is.
#include "transport/h2_frame_meter.hpp"

#include <algorithm>

namespace sluice::transport {

namespace {

constexpr std::size_t kPrefaceBytes = 24;

enum FrameType : std::uint8_t {
  kData = 0x0,
  kHeaders = 0x1,
  kPushPromise = 0x5,
  kPing = 0x6,
  kWindowUpdate = 0x8,
  kContinuation = 0x9,
};

constexpr std::uint8_t kEndStream = 0x1;
constexpr std::uint8_t kAck = 0x1;
constexpr std::uint8_t kEndHeaders = 0x4;
// A window opened by less than this is dribbling.
constexpr std::uint32_t kSmallIncrement = 1024;

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

FrameMeter::FrameMeter(std::uint32_t max_per_second, bool expect_preface)
    : max_per_second_(max_per_second), preface_left_(expect_preface ? kPrefaceBytes : 0) {}

MeterVerdict FrameMeter::scan(std::span<const char> bytes, Clock::time_point now, std::size_t open_streams,
                              std::size_t max_streams, const StreamStates& streams) {
  new_streams_ = 0;
  known_stream_id_ = streams.last_opened();
  streams_ = &streams;
  auto in = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t left = bytes.size();
  while (left > 0 && !flooded_) {
    std::size_t used = 0;
    if (preface_left_ > 0) {
      used = std::min(left, preface_left_);
      preface_left_ -= used;
    } else if (reading_increment_) {
      used = std::min(left, sizeof increment_ - increment_have_);
      std::copy_n(in, used, increment_ + increment_have_);
      increment_have_ += used;
      payload_left_ -= used;
      if (increment_have_ == sizeof increment_) on_window_increment();
    } else if (payload_left_ > 0) {
      used = std::min(left, payload_left_);
      payload_left_ -= used;
    } else {
      used = std::min(left, sizeof header_ - header_have_);
      std::copy_n(in, used, header_ + header_have_);
      header_have_ += used;
      if (header_have_ == sizeof header_) on_header(open_streams, max_streams);
    }
    if (pending_count_) count(now);
    note_head(now);
    in += used;
    left -= used;
  }
  streams_ = nullptr;
  return flooded_ ? MeterVerdict::flood : MeterVerdict::ok;
}

// Streams opened by these very bytes are not known to the session yet:
// only those it opened before them can be told gone.
bool FrameMeter::late_frame_counts(std::uint32_t stream) {
  if (stream == 0 || stream > known_stream_id_ || streams_->open(stream)) return false;
  for (ResetStream& reset : reset_streams_) {
    if (reset.stream == stream && reset.frames_forgiven > 0) {
      --reset.frames_forgiven;
      return false;
    }
  }
  return true;
}

void FrameMeter::on_header(std::size_t open_streams, std::size_t max_streams) {
  header_have_ = 0;
  ++frames_;
  payload_left_ = (std::size_t{header_[0]} << 16) | (std::size_t{header_[1]} << 8) | header_[2];
  const std::uint8_t type = header_[3];
  const std::uint8_t flags = header_[4];
  const std::uint32_t stream = be32(header_ + 5) & 0x7fffffffu;
  head_payload_ = type == kHeaders || type == kPushPromise || type == kContinuation;
  if (head_payload_) header_block_open_ = (flags & kEndHeaders) == 0;
  switch (type) {
    case kData:
      pending_count_ = (payload_left_ == 0 && (flags & kEndStream) == 0) || late_frame_counts(stream);
      return;
    case kHeaders: {
      const bool opens = stream > last_stream_id_;
      if (opens) {
        last_stream_id_ = stream;
        ++new_streams_;
      }
      // Not opening a stream (trailers) or opening one past the limit.
      pending_count_ = !opens || open_streams + new_streams_ > max_streams;
      return;
    }
    case kPing:
      if ((flags & kAck) != 0 && ping_acks_expected_ > 0) {
        --ping_acks_expected_;
        pending_count_ = false;
        return;
      }
      pending_count_ = true;
      return;
    case kWindowUpdate:
      reading_increment_ = payload_left_ == sizeof increment_;
      increment_have_ = 0;
      window_of_gone_stream_ = late_frame_counts(stream);
      // A malformed WINDOW_UPDATE is nghttp2's to refuse; it counts here.
      pending_count_ = !reading_increment_;
      return;
    default:
      pending_count_ = true;
      return;
  }
}

void FrameMeter::note_head(Clock::time_point now) {
  const bool in_head = header_have_ > 0 || header_block_open_ || (head_payload_ && payload_left_ > 0);
  if (!in_head) {
    head_since_.reset();
  } else if (!head_since_) {
    head_since_ = now;
  }
}

void FrameMeter::on_window_increment() {
  reading_increment_ = false;
  pending_count_ = window_of_gone_stream_ || (be32(increment_) & 0x7fffffffu) < kSmallIncrement;
}

void FrameMeter::reset_sent(std::uint32_t stream, std::uint32_t error_code, Clock::time_point now) {
  reset_streams_[next_reset_] = {stream, kFramesForgivenAfterReset};
  next_reset_ = (next_reset_ + 1) % reset_streams_.size();
  constexpr std::uint32_t kNoError = 0x0, kInternalError = 0x2, kCancel = 0x8;
  if (error_code == kNoError || error_code == kInternalError || error_code == kCancel) return;
  count(now);
}

void FrameMeter::count(Clock::time_point now) {
  pending_count_ = false;
  ++counted_;
  if (now - window_start_ >= std::chrono::seconds(1)) {
    window_start_ = now;
    in_window_ = 0;
  }
  if (++in_window_ > max_per_second_) flooded_ = true;
}

}  // namespace sluice::transport
