#include "broker/stream_replayer.hpp"

#include <algorithm>

#include "broker/commands.hpp"
#include "broker/continuity.hpp"

namespace sluice::broker {

StreamReplayer::StreamReplayer(RedisLink& link, std::string prefix, std::size_t max_events, std::size_t max_data)
    : link_(link),
      prefix_(std::move(prefix)),
      max_events_(std::max<std::size_t>(max_events, 1)),
      max_data_(max_data),
      waiting_(std::max<std::size_t>(link.limits().max_pending, 1)) {}

StreamReplayer::~StreamReplayer() { link_.forget(*this); }

ReplayStart StreamReplayer::replay(std::string_view topic, StreamId after, StreamId upto, ReplayHandler& handler,
                                   std::uint64_t tag) {
  if (after.epoch != upto.epoch) return ReplayStart::other_epoch;
  if (upto.seq < after.seq || upto.seq - after.seq > max_events_) return ReplayStart::too_old;
  if (count_ == waiting_.size()) return ReplayStart::busy;
  write_range(command_, prefix_, topic, after, upto, upto.seq - after.seq + 1);
  switch (link_.submit(command_, *this, 0)) {
    case Submit::accepted:
      break;
    case Submit::unavailable:
      return ReplayStart::unavailable;
    case Submit::full:
    case Submit::too_large:
      return ReplayStart::busy;
  }
  waiting_[(head_ + count_) % waiting_.size()] = Waiting{&handler, tag, after, upto};
  ++count_;
  return ReplayStart::accepted;
}

void StreamReplayer::on_reply(std::uint64_t, Outcome outcome, const redisReply* reply) {
  const Waiting w = waiting_[head_];
  head_ = (head_ + 1) % waiting_.size();
  --count_;
  if (outcome != Outcome::reply) {
    w.handler->on_replay(w.tag, ReplayAnswer{ReplayStatus::failed, {}, nullptr, to_string(outcome)});
    return;
  }
  w.handler->on_replay(w.tag, judge(w, reply));
}

// Whole means: `after` itself first, then every id to `upto` in turn.
ReplayAnswer StreamReplayer::judge(const Waiting& w, const redisReply* reply) {
  const ReplyLimits limits{1, w.upto.seq - w.after.seq + 1, 16, max_data_};
  const EntriesReply range = parse_range(reply, limits, entries_);
  if (range.status != ReplyStatus::ok) {
    return {ReplayStatus::failed, {}, nullptr,
            range.status == ReplyStatus::redis_error ? range.error : to_string(range.status)};
  }
  const bool found = !entries_.empty();
  if (const char* reset = check_resume(w.after, found, found ? entries_.front().id : StreamId{})) {
    return {ReplayStatus::reset, {}, reset, {}};
  }
  for (std::size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].id != entries_[i - 1].id.next()) return {ReplayStatus::reset, {}, kUnknownId, {}};
  }
  // Fewer than asked: the stream no longer reaches `upto` (it was rewound).
  if (entries_.back().id != w.upto) return {ReplayStatus::reset, {}, kStreamRewound, {}};
  // The client's own event came first, unless it named "before the first".
  const std::size_t owed_from = w.after.seq == 0 ? 0 : 1;
  const std::size_t owed = static_cast<std::size_t>(w.upto.seq - w.after.seq);
  return {ReplayStatus::ok, std::span<const StreamEntry>(entries_).subspan(owed_from, owed), nullptr, {}};
}

}  // namespace sluice::broker
