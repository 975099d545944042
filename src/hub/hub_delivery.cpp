// Owns: handing a topic's news to this loop's subscribers. drain() and
// drain_pending() read what the loop has not delivered yet from the topic's
// history under its lock, then deliver it outside the lock, subscriber by
// subscriber, as runs where a subscriber can take them. With a broker, a
// reset rebases every subscriber and a hole in the stream's ids is told as
// lost between the events around it.
#include <algorithm>

#include "hub/event_runs.hpp"
#include "hub/hub.hpp"
#include "hub/hub_local.hpp"

namespace sluice::hub {

// The inbox entry holds the record until the last line: `queued` counts it.
void Hub::drain(TopicRecord* record) {
  // Cleared before reading, so an event published from here on tells the
  // loop again; and before the topic's lock, which TopicBook::notify_loops
  // relies on to skip telling a loop whose flag it sees set.
  record->pending[loop_].store(false, std::memory_order_release);
  deliver_news(record);
  record->queued.fetch_sub(1, std::memory_order_release);
}

// Only a record this loop follows is read: one it does not may already be
// freed (a drain_pending() entry whose last subscriber left meanwhile).
void Hub::deliver_news(TopicRecord* record) {
  const auto it = locals_.find(record);
  if (it == locals_.end() || !it->second->followed()) return;
  Local& local = *it->second;
  std::uint64_t lost_first = 0;
  let_go_of_batch();
  const char* reset = nullptr;
  bool rebased = false;
  bool placed = false;
  std::uint64_t epoch = 0;
  std::uint64_t place = 0;
  {
    const std::lock_guard lock(record->mutex);
    if (local.resets != record->resets) {  // only ever with a broker
      // The reason is told once: a rebase after the reset that set it is
      // silent for a loop that acted on that reset already.
      reset = local.resets < record->reason_count ? record->reset_reason : nullptr;
      local.resets = record->resets;
      local.delivered = record->reset_base;
      rebased = true;
    }
    placed = local.has_awaiting && record->reader_placed;
    epoch = current_stream(*record);
    place = record->place_seq;
    collect_after(*record, local.delivered, lost_first);
  }
  if (rebased) rebase(local, reset);
  // A publisher's wait for room ran out (TopicBook::cut_stalled).
  if (const std::uint32_t cuts = record->stall_cuts.load(std::memory_order_acquire); cuts != local.stall_cuts) {
    local.stall_cuts = cuts;
    cut_stalled(local);
  }
  if (placed) answer_awaiting(local, epoch, place, reset);
  // Publishers wait for a lagging loop and the pool never takes back an
  // undelivered event, so this is a safety net: should the history ever not
  // reach back, the subscribers hear exactly which ids they lost.
  if (lost_first != 0) report_loss(local, lost_first, batch_.front().seq - 1);
  // A broker's reader may find a hole mid-batch (entries trimmed before it
  // read them): those subscribers hear which ids they lost, in place.
  if (follower_ != nullptr) {
    deliver_with_holes(local);
  } else {
    deliver_batch(local);
  }
  if (!batch_.empty()) {
    local.delivered = batch_.back().seq;
    record->delivered[loop_].store(local.delivered, std::memory_order_release);
    book_.wake_waiting_publishers(*record);
    book_.gate().room_made(record->room_waiters);
  }
  let_go_of_batch();
  let_go_if_unfollowed(record);
}

// Listed first: a delivery may subscribe (adding entries) or let go of a
// topic (removing one), which would upset a walk over the map itself.
void Hub::drain_pending() {
  pending_.clear();
  for (auto& [record, local] : locals_) {
    if (local->record->pending[loop_].load(std::memory_order_acquire)) pending_.push_back(local->record);
  }
  for (TopicRecord* record : pending_) {
    if (!locals_.contains(record)) continue;
    record->pending[loop_].store(false, std::memory_order_release);  // before the lock, as in drain()
    deliver_news(record);
  }
  pending_.clear();
}

// Subscriber by subscriber, each taking the whole batch in id order: one
// connection's queue stays in cache while it fills, rather than every
// subscriber's queue being touched once per event. A subscriber owed every
// event of the batch is first offered them as one run (a reference and a
// few iovecs per drain instead of per event); one that joined during the
// batch, or whose policy weighs each event, takes them one by one.
void Hub::deliver_batch(Local& local) {
  if (batch_.empty()) return;
  const TopicRecord& record = *local.record;
  BatchFrames frames(*this, record);
  EventRuns runs(book_.pool(), batch_, frames);
  const std::uint64_t first = batch_.front().seq;
  const std::uint64_t last = batch_.back().seq;
  local.delivering = true;
  // Index loops, the entry read afresh for every event: deliver() may
  // unsubscribe this subscriber or subscribe others (growing the vector).
  for (std::size_t i = 0; i < local.subscribers.size(); ++i) {
    {
      const Local::Entry entry = local.subscribers[i];
      if (entry.subscriber == nullptr) continue;
      if (entry.first_seq <= first &&
          entry.subscriber->deliver_run(RunDelivery{record.name, entry.cookie, first, last, runs})) {
        continue;
      }
    }
    for (std::size_t e = 0; e < batch_.size(); ++e) {
      const Local::Entry entry = local.subscribers[i];
      if (entry.subscriber == nullptr) break;
      if (batch_[e].seq < entry.first_seq) continue;
      entry.subscriber->deliver(
          Delivery{record.name, entry.cookie, batch_[e].seq, batch_[e].key, frames.frames()[e]});
    }
  }
  frames_.clear();
  end_delivering(local);
}

// A subscriber that takes a run of forms the publisher built needs none
// of these; one that takes the events one by one, or a form nobody built,
// has them all made at its first request.
std::span<EventFrames> Hub::BatchFrames::frames() {
  if (!made_) {
    made_ = true;
    hub_.frames_.clear();
    for (const KeptEvent& event : hub_.batch_) {
      hub_.frames_.emplace_back(hub_.book_.pool(), hub_.scratch_, record_.name, hub_.book_.id_text(event), event.sse,
                                event.payload, event.ws.data());
    }
  }
  return hub_.frames_;
}

// After a broker's reset (or the reader's first position): ids continue
// from local.delivered, and every subscriber is owed what comes next.
// Index loop, the entry read afresh: a reset may unsubscribe or subscribe.
void Hub::rebase(Local& local, const char* reason) {
  local.record->delivered[loop_].store(local.delivered, std::memory_order_release);
  local.delivering = true;
  for (std::size_t i = 0; i < local.subscribers.size(); ++i) {
    Local::Entry& entry = local.subscribers[i];
    // A parked subscriber learns what became of its stream when it attaches.
    if (entry.subscriber == nullptr || entry.first_seq == kParked) continue;
    if (reason == nullptr) {
      // The topic's start moved: a subscriber that resumed past it is
      // owed from its own id still.
      entry.first_seq = std::max(entry.first_seq, local.delivered + 1);
      continue;
    }
    entry.first_seq = local.delivered + 1;
    // One still awaiting its place hears the reason after it (answer_awaiting).
    const Local::Entry told = entry;
    if (!told.awaiting) told.subscriber->reset(told.cookie, reason);
  }
  end_delivering(local);
}

// The subscribers that joined before the reader placed the topic: each is
// told where it stands, then (the place came with a reset) why nothing
// before it is coming. Before any event of this drain, which may be the
// first after the place. A topic followed again after a stop is placed at
// the stream's newest (`place`): what the reader reads before it is of the
// subscribers that were told the stop, not of those that joined since.
// Index loop, the entry read afresh: an answer may unsubscribe or subscribe.
void Hub::answer_awaiting(Local& local, std::uint64_t epoch, std::uint64_t place, const char* reason) {
  local.has_awaiting = false;
  local.delivering = true;
  for (std::size_t i = 0; i < local.subscribers.size(); ++i) {
    Local::Entry& entry = local.subscribers[i];
    if (entry.subscriber == nullptr || !entry.awaiting) continue;
    entry.awaiting = false;
    entry.first_seq = std::max(entry.first_seq, place + 1);
    const Local::Entry told = entry;
    told.subscriber->placed(told.cookie, epoch, told.first_seq - 1);
    if (reason != nullptr && local.subscribers[i].subscriber != nullptr) told.subscriber->reset(told.cookie, reason);
  }
  end_delivering(local);
}

// Each subscriber decides whether it is one the waiting publisher gave up
// on (a fifo subscriber still short of room). Index loop, the entry read
// afresh: a cut-off unsubscribes.
void Hub::cut_stalled(Local& local) {
  local.delivering = true;
  for (std::size_t i = 0; i < local.subscribers.size(); ++i) {
    const Local::Entry entry = local.subscribers[i];
    if (entry.subscriber != nullptr) entry.subscriber->stalled(entry.cookie);
  }
  end_delivering(local);
}

// Splits the batch at each hole in its ids, reporting the hole between
// the runs it delivers.
void Hub::deliver_with_holes(Local& local) {
  std::size_t begin = 0;
  for (std::size_t e = 1; e <= batch_.size(); ++e) {
    if (e < batch_.size() && batch_[e].seq == batch_[e - 1].seq + 1) continue;
    if (begin == 0 && e == batch_.size()) return deliver_batch(local);
    held_.assign(batch_.begin() + static_cast<std::ptrdiff_t>(begin), batch_.begin() + static_cast<std::ptrdiff_t>(e));
    held_.swap(batch_);
    deliver_batch(local);
    held_.swap(batch_);
    if (e < batch_.size()) report_loss(local, batch_[e - 1].seq + 1, batch_[e].seq - 1);
    begin = e;
  }
}

// Index loop, the entry read afresh: a notice may unsubscribe or subscribe.
void Hub::report_loss(Local& local, std::uint64_t first, std::uint64_t last) {
  local.delivering = true;
  for (std::size_t i = 0; i < local.subscribers.size(); ++i) {
    const Local::Entry entry = local.subscribers[i];
    if (entry.subscriber != nullptr && last >= entry.first_seq) {
      entry.subscriber->lost(entry.cookie, std::max(first, entry.first_seq), last);
    }
  }
  end_delivering(local);
}

// Callbacks run while `delivering` is set: an unsubscribe from one leaves
// a hole in the list, closed here, rather than erasing an entry, or the
// Local itself, under the walk. A drain's handles on its batch may be
// uncounted: the Local must follow the topic until the drain is done.
void Hub::end_delivering(Local& local) {
  local.delivering = false;
  if (local.has_holes) {
    std::erase_if(local.subscribers, [](const Local::Entry& e) { return e.subscriber == nullptr; });
    local.has_holes = false;
  }
}

}  // namespace sluice::hub
