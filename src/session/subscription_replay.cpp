// Owns: the part of Subscriptions that hands a resuming client what it
// missed in parts: fetched from the broker when its id is older than this
// node keeps, and from the history a page at a time when it is longer than
// the stream's queue has room for.
//
// The hub holds such a subscription parked: the loop follows the topic and
// keeps reading it, but no live event is owed to the slot yet. Its events
// after the client's id come from the topic's stream a page at a time
// (BrokerReplays), each page checked whole before any of it is queued, in
// order, under the stream's ids. After each page the hub is asked to join
// the slot to the live stream at the seam (Hub::attach): the kept events
// after the page come from the history and everything newer live, so no
// event is missing and none comes twice. Should the history have moved on
// past the page meanwhile, the next page is fetched up to what it keeps now.
//
// The history's part is paged too: a replay is handed over only as far as
// a third of the send budget (less what is queued) goes, and the rest once
// the queue has drained to a quarter of it (turn_pages(), at the end of
// the tick of the flush that drained it). Handed at once, a
// long replay to a reader that reads as fast as it can was past the budget
// before its first byte left: fifo cut it off, drop-oldest dropped the
// oldest of what it had asked for.
//
// A page that cannot be had is a reset, told before any live event, never
// a silent gap: the client's id trimmed from the stream (too-old), the
// stream replaced or gone, Redis unreachable or too busy to ask.
#include "hub/hub.hpp"
#include "session/services.hpp"
#include "session/subscriptions.hpp"

namespace sluice::session {

namespace {

// Past a third of its budget a stream takes no more of a replay this turn;
// it goes on once its queue has drained to a quarter (turn_pages()).
bool past_a_third(const conn::OutQueue& queue) {
  const conn::OutQueueLimits& budget = queue.limits();
  return queue.data_frames() * 3 >= budget.max_frames || queue.data_bytes() * 3 >= budget.max_bytes;
}

}  // namespace

void Subscriptions::start_fetch(std::uint32_t cookie, const hub::ReplayResult& parked) {
  if (cookie >= fetching_.size()) fetching_.resize(cookie + 1);
  fetching_[cookie] = Fetching{true, parked.paged, 0, parked.stream_epoch, parked.after, parked.newest};
  if (parked.paged) {
    pages_waiting_ = true;
    return;
  }
  fetch_next(cookie);
}

hub::ReplayPage Subscriptions::replay_page(Policy policy) const {
  if (policy == Policy::latest) return {};
  const conn::OutQueue& queue = outlet_.queue();
  const conn::OutQueueLimits& budget = queue.limits();
  // A third: well under the half past which a fifo stream counts itself
  // short of room and holds back publishers that wait for room. With none
  // left, the page may be empty: the topic waits for the next turn.
  const std::size_t frames = budget.max_frames / 3;
  const std::size_t bytes = budget.max_bytes / 3;
  const bool full = queue.data_frames() >= frames || queue.data_bytes() >= bytes;
  const auto room = [](std::size_t third, std::size_t held) { return third > held ? third - held : 1; };
  return {room(frames, queue.data_frames()), room(bytes, queue.data_bytes()), full};
}

void Subscriptions::want_pages() {
  if (!page_turner_) page_turner_ = std::make_unique<PageTurner>(*this);
  services_.loop().defer(page_turner_.get());
}

void Subscriptions::turn_pages() {
  const conn::OutQueue& queue = outlet_.queue();
  const conn::OutQueueLimits& budget = queue.limits();
  if (stopped_ || queue.data_frames() * 4 > budget.max_frames || queue.data_bytes() * 4 > budget.max_bytes) return;
  pages_waiting_ = false;
  // By index: a page may end the stream, which empties the slots. Each
  // topic's page takes at least one event, so once the pages so far fill
  // a third of the budget the rest wait for the next turn (several topics
  // of large events each taking their one would pass the budget together),
  // and the next turn starts with the first topic left waiting.
  const std::size_t count = fetching_.size();
  for (std::size_t step = 0; step < count && step < fetching_.size(); ++step) {
    const std::size_t i = (page_cursor_ + step) % count;
    if (i >= fetching_.size() || !fetching_[i].active || !fetching_[i].paging) continue;
    if (past_a_third(queue)) {
      page_cursor_ = static_cast<std::uint32_t>(i);
      pages_waiting_ = true;
      return;
    }
    next_page(static_cast<std::uint32_t>(i));
    if (stopped_) return;
    if (i < fetching_.size() && fetching_[i].active && fetching_[i].paging) pages_waiting_ = true;
  }
}

void Subscriptions::next_page(std::uint32_t cookie) {
  // Copied: a delivery may end the stream, which empties the slots.
  const std::string topic = slots_[cookie].name;
  const Policy policy = slots_[cookie].policy;
  const hub::AttachResult attached = services_.hub().attach(topic, this, fetching_[cookie].epoch,
                                                            fetching_[cookie].after, replay_page(policy),
                                                            policy == Policy::fifo);
  if (stopped_ || cookie >= fetching_.size() || !fetching_[cookie].active) return;
  Fetching& f = fetching_[cookie];
  switch (attached.kind) {
    case hub::AttachResult::Kind::paged:
      f.paging = true;
      f.after = attached.upto;
      pages_waiting_ = true;
      return;
    case hub::AttachResult::Kind::fetch:
      f.paging = false;
      f.upto = attached.upto;
      return fetch_next(cookie);
    case hub::AttachResult::Kind::overtaken:
      // fifo loses nothing: cut off, it resumes from its last id and is
      // told there (too-old) what the history let go of.
      f.active = false;
      return cut_off_past_budget(Policy::fifo);
    case hub::AttachResult::Kind::reset:
      f.active = false;
      send_reset_notice(cookie, attached.reason, {});
      return outlet_.want_flush();
    case hub::AttachResult::Kind::attached:
    case hub::AttachResult::Kind::gone:
      f.active = false;
      return;
  }
}

void Subscriptions::fetch_next(std::uint32_t cookie) {
  Fetching& f = fetching_[cookie];
  BrokerReplays* replays = services_.broker_replays();
  const broker::ReplayStart start =
      replays == nullptr ? broker::ReplayStart::unavailable
                         : replays->fetch(slots_[cookie].name, {f.epoch, f.after}, {f.epoch, f.upto}, *this, f.ticket);
  if (start != broker::ReplayStart::accepted) give_up_fetch(cookie, replay_refusal(start));
}

void Subscriptions::replayed(std::uint32_t ticket, const broker::ReplayAnswer& answer) {
  for (std::size_t i = 0; i < fetching_.size(); ++i) {
    if (!fetching_[i].active || fetching_[i].paging || fetching_[i].ticket != ticket) continue;
    const auto cookie = static_cast<std::uint32_t>(i);
    switch (answer.status) {
      case broker::ReplayStatus::ok:
        return hand_over_fetched(cookie, answer);
      case broker::ReplayStatus::reset:
        return give_up_fetch(cookie, answer.reset);
      case broker::ReplayStatus::failed:
        return give_up_fetch(cookie, "broker-unavailable");
    }
    return;
  }
}

// A fetched page is sized for Redis's answer, not for this stream's queue:
// handed whole, a page of larger events went past the send budget at once
// and cut off the reader that asked for it. What the queue has no room
// for (past a third of the budget, the first event always taken) waits as
// a history page does, and is fetched again once the queue has drained.
// `latest` takes it whole: it keeps only the newest of each key anyway.
void Subscriptions::hand_over_fetched(std::uint32_t cookie, const broker::ReplayAnswer& answer) {
  hub::Hub& hub = services_.hub();
  // Copied: a delivery may end the stream, which empties the slots.
  const std::string topic = slots_[cookie].name;
  const bool room_matters = slots_[cookie].policy != Policy::latest;
  bool handed = false;
  for (const broker::StreamEntry& entry : answer.entries) {
    if (stopped_ || cookie >= fetching_.size() || !fetching_[cookie].active) return;
    if (handed && room_matters && past_a_third(outlet_.queue())) return page_when_drained(cookie);
    handed = true;
    if (entry.unusable != nullptr) {
      services_.metrics().broker_unusable_entries.add();
      lost(cookie, entry.id.seq, entry.id.seq);  // an entry this node cannot use
    } else {
      hub.deliver_fetched(topic, this, cookie, entry.id.epoch, entry.id.seq,
                          hub::Message{entry.data, entry.event, entry.key});
    }
    fetching_[cookie].after = entry.id.seq;
  }
  if (stopped_ || cookie >= fetching_.size() || !fetching_[cookie].active) return;
  if (room_matters && past_a_third(outlet_.queue())) return page_when_drained(cookie);
  next_page(cookie);
}

// The slot waits as a history page does: turn_pages() asks the hub for what
// comes after `after` once the queue has drained, a fetch again when the
// history does not hold it. A turn is asked for now too: the queue may have
// been written out whole while the page was handed over, and then no later
// flush would ask for it.
void Subscriptions::page_when_drained(std::uint32_t cookie) {
  fetching_[cookie].paging = true;
  pages_waiting_ = true;
  want_pages();
}

// Live from now on, told first why what came before is not coming.
void Subscriptions::give_up_fetch(std::uint32_t cookie, const char* reason) {
  if (cookie < fetching_.size()) fetching_[cookie].active = false;
  if (cookie >= slots_.size() || slots_[cookie].name.empty()) return;
  services_.hub().release(slots_[cookie].name, this);
  if (stopped_) return;
  send_reset_notice(cookie, reason, {});
  outlet_.want_flush();
}

void Subscriptions::cancel_fetch(std::uint32_t cookie) {
  if (cookie >= fetching_.size() || !fetching_[cookie].active) return;
  BrokerReplays* replays = services_.broker_replays();
  if (replays != nullptr && !fetching_[cookie].paging) replays->cancel(fetching_[cookie].ticket);
  fetching_[cookie].active = false;
}

}  // namespace sluice::session
