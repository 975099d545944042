#include "session/h2_stream_backlog.hpp"

namespace sluice::session {

std::optional<H2SocketBacklog::Offsets> H2SocketBacklog::sample(Clock::time_point now) {
  const std::uint64_t written = h2_.written();
  // Streams planned for the same flush share one look.
  if (now == last_at_ && written == last_written_) return last_;
  last_at_ = now;
  last_written_ = written;
  const std::optional<conn::Backlog> backlog = peer_.sample(now);
  if (!backlog) {
    last_.reset();
    return last_;
  }
  Offsets offsets;
  offsets.acked = written > backlog->in_flight ? written - backlog->in_flight : 0;
  offsets.consumed = offsets.acked > backlog->unread ? offsets.acked - backlog->unread : 0;
  offsets.arrived = offsets.acked + backlog->arriving;
  offsets.window_unit = backlog->window_unit;
  offsets.round_trip = backlog->round_trip;
  offsets.room = backlog->room;
  padding_ = backlog->padding;
  last_ = offsets;
  return last_;
}

std::optional<conn::Backlog> H2StreamBacklog::sample(Clock::time_point now) {
  const std::optional<H2SocketBacklog::Offsets> offsets = socket_.sample(now);
  if (!offsets) return std::nullopt;
  std::optional<conn::Backlog> backlog = h2_.stream_backlog(stream_, offsets->acked, offsets->consumed, offsets->arrived);
  if (backlog) {
    backlog->window_unit = offsets->window_unit;
    backlog->round_trip = offsets->round_trip;
    backlog->room = offsets->room;
    backlog->padding = socket_.take_padding();
  }
  return backlog;
}

}  // namespace sluice::session
