// Owns: the hub's side of a replay handed over in parts: fetched from a
// broker for a subscriber whose id is older than this node keeps, or
// longer than the page its subscriber's queue has room for. The
// subscriber waits parked (it is counted and its loop follows the topic,
// but no live event is owed to it), its owner hands it the fetched events
// (deliver_fetched) or asks for the next page, then attach() joins it to
// the live stream at the seam with nothing missing and nothing twice, or
// hands it the next page, or says to fetch further.
//
// The seam: the events handed so far end at `after`. Under the topic's
// lock, if the history still holds after+1 (or nothing came since), the
// kept events after it are handed over, a page at most, and once the last
// one is, the subscriber is owed everything newer live, exactly as a
// subscribe_after() from a kept id. If the history has moved past after+1
// meanwhile (a small history, a busy topic, a reader slower than it), a
// broker's topic has the owner fetch up to the newest event now kept and
// try again; a topic of this node goes on from its oldest kept event, what
// came between told as lost, as a lossy policy's losses are told live, or
// tells a subscriber that may lose nothing (fifo) that it was overtaken,
// which then ends its stream as a fifo subscriber past its budget's ends.
#include <algorithm>

#include "hub/hub.hpp"
#include "hub/hub_local.hpp"

namespace sluice::hub {

Hub::Local* Hub::local_of(std::string_view topic) {
  TopicRecord* record = book_.find(topic);
  const auto it = record == nullptr ? locals_.end() : locals_.find(record);
  if (it == locals_.end() || it->second->record->name != topic) return nullptr;
  return it->second.get();
}

AttachResult Hub::attach(std::string_view topic, Subscriber* subscriber, std::uint64_t epoch, std::uint64_t after,
                          ReplayPage page, bool lossless) {
  // Pinned to the end: a page handed over may end the subscriber's stream,
  // and with it this loop's hold on the topic, before the last of it.
  const TopicRef pin = book_.find_pinned(topic);
  Local* local = pin ? local_of(topic) : nullptr;
  if (local == nullptr || local->record != pin.get()) return {};
  const auto entry = std::find_if(local->subscribers.begin(), local->subscribers.end(), [&](const Local::Entry& e) {
    return e.subscriber == subscriber && e.first_seq == kParked;
  });
  if (entry == local->subscribers.end()) return {};
  TopicRecord& record = *local->record;
  const std::uint32_t cookie = entry->cookie;  // handing over may grow the vector
  AttachResult result;
  std::uint64_t upto = after;
  replay_.clear();
  {
    const std::lock_guard lock(record.mutex);
    const std::uint64_t newest = record.next_id - 1;
    if (record.stream_epoch != epoch || record.adopting) {
      // Live from here; a reset is told by the loop to its subscribers
      // too, but a parked one was passed over, so it hears it now.
      entry->first_seq = newest + 1;
      return {AttachResult::Kind::reset, 0, "stream-replaced"};
    }
    const History& history = record.history;
    const bool reaches = after >= newest || (!history.empty() && history.oldest_seq() <= after + 1);
    const bool fetchable = follower_ != nullptr && record.stream_epoch != 0;
    if (!reaches && fetchable) return {AttachResult::Kind::fetch, newest, nullptr};
    if (!reaches && lossless) return {AttachResult::Kind::overtaken, newest, nullptr};
    upto = std::max(newest, after);
    if (collect_page(record, after, page, entry->form)) {
      upto = replay_.empty() ? after : replay_.back().seq;
      result = {AttachResult::Kind::paged, upto, nullptr};
    } else {
      entry->first_seq = upto + 1;
      result.kind = AttachResult::Kind::attached;
    }
  }
  hand_over_replay(record, subscriber, cookie, after, upto);
  return result;
}

void Hub::release(std::string_view topic, Subscriber* subscriber) {
  Local* local = local_of(topic);
  if (local == nullptr) return;
  for (Local::Entry& entry : local->subscribers) {
    if (entry.subscriber != subscriber || entry.first_seq != kParked) continue;
    const std::lock_guard lock(local->record->mutex);
    entry.first_seq = local->record->next_id;
    return;
  }
}

void Hub::deliver_fetched(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie, std::uint64_t epoch,
                          std::uint64_t seq, const Message& message) {
  KeptEvent event;
  // Not a publisher's (TopicBook::publishable), or the pool has no room for
  // it: a loss like any other, told.
  if (!TopicBook::publishable(message) || !book_.encode_event(epoch, seq, message, scratch_, event)) {
    subscriber->lost(cookie, seq, seq);
    return;
  }
  EventFrames frames(book_.pool(), scratch_, topic, book_.id_text(event), event.sse, event.payload,
                     event.ws.data());
  subscriber->deliver(Delivery{topic, cookie, event.seq, event.key, frames});
}

}  // namespace sluice::hub
