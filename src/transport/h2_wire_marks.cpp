#include "transport/h2_wire_marks.hpp"

#include <algorithm>

namespace sluice::transport {

void H2WireMarks::start(std::uint64_t stream_sent) {
  head_ = count_ = 0;
  consumed_ = stream_sent;
  watching_ = true;
}

void H2WireMarks::add(std::uint64_t wire_end, std::uint64_t stream_end) {
  if (count_ > 0) {
    Mark& newest = marks_[(head_ + count_ - 1) % kMarks];
    if (count_ == kMarks || newest.stream_end == stream_end) {
      newest = {wire_end, stream_end};
      return;
    }
  }
  marks_[(head_ + count_) % kMarks] = {wire_end, stream_end};
  ++count_;
}

conn::Backlog H2WireMarks::backlog(std::uint64_t acked, std::uint64_t consumed, std::uint64_t arrived,
                                   std::uint64_t stream_sent) {
  while (count_ > 0 && marks_[head_].wire_end <= consumed) {
    consumed_ = std::max(consumed_, marks_[head_].stream_end);
    head_ = (head_ + 1) % kMarks;
    --count_;
  }
  std::uint64_t acked_stream = consumed_;
  std::uint64_t arrived_stream = consumed_;
  for (std::size_t i = 0; i < count_; ++i) {
    const Mark& mark = marks_[(head_ + i) % kMarks];
    if (mark.wire_end > std::max(acked, arrived)) break;
    arrived_stream = mark.stream_end;
    if (mark.wire_end <= acked) acked_stream = mark.stream_end;
  }
  const std::uint64_t unconsumed = stream_sent > consumed_ ? stream_sent - consumed_ : 0;
  const std::uint64_t in_flight = std::min(unconsumed, stream_sent > acked_stream ? stream_sent - acked_stream : 0);
  const std::uint64_t arriving = std::min(in_flight, arrived_stream - acked_stream);
  return {.in_flight = static_cast<std::size_t>(in_flight),
          .unread = static_cast<std::size_t>(unconsumed - in_flight),
          .arriving = static_cast<std::size_t>(arriving)};
}

}  // namespace sluice::transport
