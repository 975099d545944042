// Offsets count the connection's bytes modulo 2^32, as TCP sequence numbers
// do, and are compared the same way: lwIP's send buffer keeps the frames
// held at once far fewer than 2^31 bytes apart, and the acknowledged offset
// never passes the end of the last frame started.
#include "embedded/lwip/ack_hold.hpp"

namespace sluice::embedded::lwip {

namespace {
bool reached(std::uint32_t acked, std::uint32_t end) { return static_cast<std::int32_t>(acked - end) >= 0; }
}  // namespace

void AckHold::started(const buf::FrameRef& frame) {
  // A full ring cannot happen: the writer takes no more slices in one
  // writev than there are free slots, and a frame starts in one of them.
  if (frame.size() == 0 || count_ == slots_.size()) return;
  started_end_ += static_cast<std::uint32_t>(frame.size());
  slots_[(head_ + count_) % slots_.size()] = {frame, started_end_};
  ++count_;
}

void AckHold::acked(std::size_t bytes) {
  acked_ += static_cast<std::uint32_t>(bytes);
  if (!reached(started_end_, acked_)) acked_ = started_end_;
  while (count_ > 0 && reached(acked_, slots_[head_].end)) {
    slots_[head_].frame.reset();
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }
}

void AckHold::release_all() {
  for (; count_ > 0; --count_) {
    slots_[head_].frame.reset();
    head_ = (head_ + 1) % slots_.size();
  }
}

}  // namespace sluice::embedded::lwip
