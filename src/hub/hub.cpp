// Owns: a loop's subscriptions: subscribing (live, or after an id with the
// kept events handed over first, or parked while a broker's events are
// fetched), unsubscribing, and letting go of a topic nobody on this loop
// follows. Delivering news is in hub_delivery.cpp, a parked subscriber's
// join in hub_attach.cpp.
#include "hub/hub.hpp"

#include <algorithm>

#include "hub/event_id.hpp"
#include "hub/hub_local.hpp"

namespace sluice::hub {
namespace {

// How many of the topic's subscribers take `form`: the publisher builds the
// forms whose count is not zero. Under the record's lock.
std::size_t& form_count(TopicRecord& record, WireForm form) {
  return form == WireForm::sse ? record.sse_subscribers : record.form_subscribers[ws_index(form)];
}

}  // namespace

// A batch holds at most a topic's history. Room for a default history is
// made now, so that delivering allocates only past it, while growing.
Hub::Hub(TopicBook& book, unsigned loop) : book_(book), loop_(loop) {
  const std::size_t room = std::max(kMinKeptEvents, std::min<std::size_t>(book.limits().history_events, 1024));
  batch_.reserve(room);
  replay_.reserve(room);
  frames_.reserve(room);
}

Hub::~Hub() {
  let_go_of_batch();  // a drain an exception ended may have left handles
  for (auto& [record, local] : locals_) {
    if (!local->followed()) continue;
    const std::lock_guard lock(local->record->mutex);
    for (const Local::Entry& e : local->subscribers) {
      if (e.subscriber == nullptr) continue;
      --local->record->subscribers;
      --form_count(*local->record, e.form);
    }
    local->record->loop_mask &= ~(std::uint64_t{1} << loop_);
  }
}

HubStatus Hub::subscribe(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie, WireForm form,
                         TopicAllowance* allowance) {
  return join(topic, subscriber, cookie, nullptr, form, allowance, {}).status;
}

ReplayResult Hub::subscribe_after(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie,
                                  std::string_view last_id, WireForm form, TopicAllowance* allowance,
                                  ReplayPage page) {
  return join(topic, subscriber, cookie, last_id.empty() ? nullptr : &last_id, form, allowance, page);
}

// Under the topic's lock: this loop is marked as following the topic, the
// subscriber is counted, and the replay is copied out. Events published
// after the lock are this subscriber's live stream; the ones before it that
// this loop has yet to drain are skipped for it (first_seq), so that none
// arrives twice. The record stays pinned until the replay is handed over.
ReplayResult Hub::join(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie,
                       const std::string_view* last_id, WireForm form, TopicAllowance* allowance, ReplayPage page) {
  HubStatus status;
  const TopicRef ref = book_.acquire(topic, status, allowance);
  if (!ref) return {status};
  TopicRecord* record = ref.get();
  if (const HubStatus charged = book_.charge_follower(*record, allowance); charged != HubStatus::ok) return {charged};
  ReplayResult result{HubStatus::ok};
  std::uint64_t newest = 0;
  std::uint64_t first_owed = 1;
  // What the replay owes the subscriber: the events after replay_after up
  // to replay_upto (none when they are equal).
  std::uint64_t replay_after = 0;
  std::uint64_t replay_upto = 0;
  replay_.clear();
  Local* local = nullptr;
  {
    const std::lock_guard lock(record->mutex);
    if (record->subscribers >= book_.limits().max_subscribers_per_topic) return {HubStatus::too_many_subscribers};
    auto& slot = locals_[record];
    if (!slot) slot = std::make_unique<Local>(record);
    local = slot.get();
    // A client resuming on a broker's topic not read yet sets where the
    // reader starts, and is owed what comes after its id.
    std::uint64_t resume_point = 0;
    const bool from_stream = last_id != nullptr && starts_at_resume_point(*record, *last_id, resume_point);
    // A broker's topic not read yet has no newest event on this node: the
    // subscriber is owed whatever the reader finds after where it starts.
    newest = follower_ != nullptr && record->stream_epoch == 0 ? 0 : record->next_id - 1;
    first_owed = newest + 1;
    // A Local whose subscribers all left during a delivery still follows
    // the topic until the drain is done (its bit and `delivered` stand):
    // saying now that it delivered the newest would let the history give
    // up events the drain still holds uncounted (collect_after()).
    if (!local->followed() && !local->delivering) {
      if (record->loop_mask == 0 && follower_ != nullptr) follower_->following_changed(record->name);
      local->resets = record->resets;
      local->stall_cuts = record->stall_cuts.load(std::memory_order_relaxed);
      local->delivered = newest;
      record->delivered[loop_].store(newest, std::memory_order_release);
      record->loop_mask |= std::uint64_t{1} << loop_;
      // A flag left set while the loop did not follow the topic (its
      // inbox was full) would keep the book from telling it of news.
      record->pending[loop_].store(false, std::memory_order_release);
    }
    ++record->subscribers;
    ++form_count(*record, form);
    std::uint64_t after = newest;
    std::uint64_t ahead = 0;
    if (from_stream) {
      first_owed = resume_point + 1;
    } else if (last_id != nullptr && ahead_of_reader(*record, *last_id, ahead)) {
      first_owed = ahead + 1;
    } else {
      if (last_id != nullptr) result.reset = check_replayable(*record, *last_id, after);
      if (result.reset == nullptr) {
        replay_after = after;
        replay_upto = std::max(after, newest);
        if (collect_page(*record, after, page, form)) {
          replay_upto = replay_.empty() ? after : replay_.back().seq;
          result.parked = result.paged = true;
          result.after = replay_upto;
        }
      }
      if (result.reset != nullptr && follower_ != nullptr) park_if_in_stream(*record, *last_id, result);
      if (result.parked) first_owed = kParked;
    }
    if (follower_ != nullptr && record->reader_refused) {
      // The reader does not read a key Redis refused: a newcomer told
      // nothing would wait for events that never come. It is told at once,
      // and the reader tries the key again (fixed since, it is read from
      // there on, for every subscriber). Told so, it is owed what comes
      // after now, not after an id of the stream that was refused (one
      // ahead of the reader would skip the next stream's first events). A
      // resuming client's own reset (its id of the refused stream is not
      // this one's) says the same less clearly: the refusal is the reason.
      if (!result.parked) {
        result.reset = "stream-refused";
        first_owed = newest + 1;
      }
      follower_->try_refused_again(record->name);
    }
    if (follower_ != nullptr) {
      // A paged subscriber's next pages are asked for under the record's
      // own stream, which current_stream() hides while it is adopted.
      result.stream_epoch = result.paged ? record->stream_epoch : current_stream(*record);
      // Only a client with no id waits for the topic's place: one that
      // resumes is answered with its replay at once, as without a broker.
      // While the reader is stopped (broker-full) the place is the one it
      // finds when it follows the topic again.
      result.awaiting = (!record->reader_placed || record->reader_stopped) && last_id == nullptr && !from_stream &&
                        !result.parked && result.reset == nullptr;
    }
  }
  result.newest = result.parked ? newest : first_owed - 1;
  local->subscribers.push_back({subscriber, cookie, first_owed, form, result.awaiting});
  local->has_awaiting = local->has_awaiting || result.awaiting;
  result.replayed = replay_.size();
  hand_over_replay(*record, subscriber, cookie, replay_after, replay_upto);
  return result;
}

namespace {

// What an event takes in a queue of `form`: that form's frame when the
// publisher built it, else its payload twice over and an id's line (a form
// built later prefixes every line, or escapes the data).
std::size_t queued_size(const KeptEvent& event, WireForm form) {
  const buf::FrameRef& built = event.kept(form);
  return built ? built.size() : 2 * event.payload_size() + 64;
}

}  // namespace

// Stops at the page rather than copying the rest (a reference each) only
// to let it go: a long replay would cost its length at every page.
bool Hub::collect_page(const TopicRecord& record, std::uint64_t after, ReplayPage page, WireForm form) {
  const History& history = record.history;
  std::size_t bytes = 0;
  for (std::size_t i = history.first_after(after); i < history.size(); ++i) {
    const KeptEvent& event = history.at(i);
    bytes += queued_size(event, form);
    const bool over = (page.events != 0 && replay_.size() >= page.events) || (page.bytes != 0 && bytes > page.bytes);
    if (over && (!replay_.empty() || page.may_be_empty)) return true;
    replay_.push_back(event);
  }
  return false;
}

// The replay, to one subscriber, outside the topic's lock. A hole in the
// kept ids (a broker's entries trimmed or passed over before the reader
// read them), between them or after the last up to `upto`, is told as
// lost in place, as live delivery tells it.
void Hub::hand_over_replay(const TopicRecord& record, Subscriber* subscriber, std::uint32_t cookie,
                           std::uint64_t after, std::uint64_t upto) {
  std::uint64_t next = after + 1;
  for (const KeptEvent& event : replay_) {
    if (event.seq > next) subscriber->lost(cookie, next, event.seq - 1);
    EventFrames frames(book_.pool(), scratch_, record.name, book_.id_text(event), event.sse, event.payload,
                       event.ws.data());
    subscriber->deliver(Delivery{record.name, cookie, event.seq, event.key, frames});
    next = event.seq + 1;
  }
  if (upto >= next) subscriber->lost(cookie, next, upto);
  replay_.clear();
}

// With a broker: whether `last_id` names an event of a stream this node has
// not found yet, which then becomes where the topic starts (the book's
// start_at_resume_point). Under the topic's lock.
bool Hub::starts_at_resume_point(TopicRecord& record, std::string_view last_id, std::uint64_t& after) const {
  if (follower_ == nullptr) return false;
  const ParsedId id = parse_event_id(last_id);
  if (!id.ok) return false;
  const std::uint64_t epoch = parse_stream_epoch(id.epoch);
  if (!TopicBook::start_at_resume_point(record, epoch, id.seq)) return false;
  after = id.seq;
  return true;
}

// With a broker: `last_id` names an event of the stream this node reads
// that its reader has not reached yet, a client come from a node whose
// reader is ahead. Nothing is owed before it and nothing was lost: the
// subscriber gets what the reader brings after its id (before, it was told
// "unknown-id" and then handed again the events it had). Within the replay
// window only: an id further ahead than any node lags is not of this
// stream, and gets its reset. Under the topic's lock.
bool Hub::ahead_of_reader(const TopicRecord& record, std::string_view last_id, std::uint64_t& after) const {
  if (follower_ == nullptr || record.stream_epoch == 0) return false;
  const ParsedId id = parse_event_id(last_id);
  if (!id.ok || !same_stream_epoch(id.epoch, record.stream_epoch)) return false;
  const std::uint64_t newest = record.next_id - 1;
  if (id.seq <= newest || id.seq - newest > book_.limits().history_events) return false;
  after = id.seq;
  return true;
}

// An id of the stream this node reads, older than it keeps: Redis may
// still have what came after it, so the subscriber waits (parked) while its
// owner fetches that, rather than being told a reset. Under the topic's lock.
void Hub::park_if_in_stream(const TopicRecord& record, std::string_view last_id, ReplayResult& result) const {
  if (std::string_view(result.reset) != "too-old" || record.stream_epoch == 0 || record.adopting) return;
  result.parked = true;
  result.reset = nullptr;
  result.stream_epoch = record.stream_epoch;
  result.after = parse_event_id(last_id).seq;
}

// Finds the sequence to replay after, or says why every event after
// `last_id` cannot be replayed.
const char* Hub::check_replayable(const TopicRecord& record, std::string_view last_id, std::uint64_t& after) const {
  const ParsedId id = parse_event_id(last_id);
  if (!id.ok) return "malformed-id";
  const bool same_epoch = record.stream_epoch != 0 ? same_stream_epoch(id.epoch, record.stream_epoch)
                                                  : id.epoch == book_.epoch();
  if (!same_epoch) return "other-epoch";
  const std::uint64_t newest = record.next_id - 1;
  if (id.seq > newest) return "unknown-id";
  // Replay reaches back history.max_events, even though more may be kept.
  const std::uint64_t window = book_.limits().history_events;
  const std::uint64_t oldest_kept = record.history.empty() ? record.next_id : record.history.oldest_seq();
  const std::uint64_t oldest_allowed = std::max(oldest_kept, newest >= window ? newest - window + 1 : 1);
  if (id.seq < newest && id.seq + 1 < oldest_allowed) return "too-old";
  after = id.seq;
  return nullptr;
}

// Copies out into batch_ (under the topic's lock) the kept events after
// `after`. `lost_first` is set when the first of them is not after + 1: the
// history no longer reaches back, or a broker's reader found a hole there
// (entries trimmed, or passed over, before it read them).
//
// Without a broker the copies take no counts on the frames: the history
// lets go of no event before every loop that follows its topic has said it
// delivered it (a publisher waits instead, TopicBook::a_loop_lags, and so
// does the pool's eviction), and this loop says so only once it is done
// with the batch. A broker's reset cuts the history whatever the loops
// have delivered (TopicBook::cut_history), so there each copy is counted.
void Hub::collect_after(const TopicRecord& record, std::uint64_t after, std::uint64_t& lost_first) {
  const History& history = record.history;
  const std::size_t first = history.first_after(after);
  if (first < history.size() && history.at(first).seq > after + 1) lost_first = after + 1;
  batch_uncounted_ = follower_ == nullptr;
  for (std::size_t i = first; i < history.size(); ++i) {
    if (batch_uncounted_) {
      batch_.emplace_back(history.at(i), KeptEvent::Uncounted{});
    } else {
      batch_.push_back(history.at(i));
    }
  }
}

void Hub::let_go_of_batch() {
  if (batch_uncounted_) {
    for (KeptEvent& event : batch_) event.forget_frames();
  }
  batch_.clear();
}

void Hub::wait_for_room(std::string_view topic) { book_.wait_for_room(topic, loop_); }

// The entry goes before the loop's bit: once the bit is clear the book may
// free the record, and nothing on this loop names it any more.
void Hub::let_go_if_unfollowed(TopicRecord* record) {
  const auto it = locals_.find(record);
  if (it == locals_.end() || it->second->delivering || it->second->followed()) return;
  locals_.erase(it);
  const std::lock_guard lock(record->mutex);
  record->loop_mask &= ~(std::uint64_t{1} << loop_);
  if (record->loop_mask == 0 && follower_ != nullptr) follower_->following_changed(record->name);
}

// The record is read only when this loop follows it (an entry in locals_);
// the name is checked too, should the address be a topic made since.
void Hub::unsubscribe(std::string_view topic, Subscriber* subscriber) {
  TopicRecord* record = book_.find(topic);
  const auto it = record == nullptr ? locals_.end() : locals_.find(record);
  if (it == locals_.end() || it->second->record->name != topic) return;
  Local& local = *it->second;
  auto pos = std::find_if(local.subscribers.begin(), local.subscribers.end(),
                          [subscriber](const Local::Entry& e) { return e.subscriber == subscriber; });
  if (pos == local.subscribers.end()) return;
  const WireForm form = pos->form;
  if (local.delivering) {
    pos->subscriber = nullptr;
    local.has_holes = true;
  } else {
    local.subscribers.erase(pos);
  }
  {
    const std::lock_guard lock(record->mutex);
    --record->subscribers;
    --form_count(*record, form);
  }
  let_go_if_unfollowed(record);
}

// As in unsubscribe(): the record is read only while this loop follows it.
std::uint64_t Hub::stream_epoch(std::string_view topic) const {
  TopicRecord* record = book_.find(topic);
  const auto it = record == nullptr ? locals_.end() : locals_.find(record);
  if (it == locals_.end() || it->second->record->name != topic) return 0;
  const std::lock_guard lock(record->mutex);
  return current_stream(*record);
}

std::size_t Hub::subscriber_count(std::string_view topic) const {
  for (const auto& [record, local] : locals_) {
    if (record->name == topic) {
      return static_cast<std::size_t>(std::count_if(local->subscribers.begin(), local->subscribers.end(),
                                                     [](const Local::Entry& e) { return e.subscriber != nullptr; }));
    }
  }
  return 0;
}

}  // namespace sluice::hub
