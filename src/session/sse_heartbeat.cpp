#include "session/sse_heartbeat.hpp"

#include "proto/sse.hpp"
#include "session/sse_stream.hpp"

namespace sluice::session {

SseHeartbeat::SseHeartbeat(io::Loop& loop, buf::Pool& pool, std::chrono::milliseconds period)
    : loop_(loop), pool_(pool), timer_(loop.every(period, [this] { beat(); })) {}

SseHeartbeat::~SseHeartbeat() { loop_.cancel(timer_); }

void SseHeartbeat::set_period(std::chrono::milliseconds period) {
  loop_.cancel(timer_);
  timer_ = loop_.every(period, [this] { beat(); });
}

void SseHeartbeat::beat() {
  if (streams_.empty()) return;
  buf::FrameBuilder builder(pool_, buf::Lane::control);
  if (proto::sse::encode_comment("", builder) != proto::sse::EncodeStatus::ok) return;
  const buf::FrameRef frame = builder.finish();
  if (!frame) return;
  for (SseStream* stream : streams_) stream->beat(frame);
}

}  // namespace sluice::session
