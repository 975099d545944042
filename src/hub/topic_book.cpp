#include "hub/topic_book.hpp"

#include <algorithm>
#include <bit>

#include "hub/event_frames.hpp"
#include "hub/event_id.hpp"
#include "hub/packed_frames.hpp"
#include "proto/topic_name.hpp"
#include "proto/sse.hpp"

namespace sluice::hub {

namespace {

// 0 means "no key: the whole topic is one slot", so a key never hashes to it.
std::uint64_t conflation_key(std::string_view key) {
  if (key.empty()) return 0;
  const std::uint64_t h = std::hash<std::string_view>{}(key);
  return h == 0 ? 1 : h;
}

// What the server's notices look like on the wire is the server's alone:
// an SSE event named sluice-*, a /ws/{topic} message that opens with
// {"sluice": (a client tells a notice by exactly that). A publisher that
// could send either would forge losses or resets to every subscriber.
HubStatus message_status(const Message& message) {
  if (message.event.size() > 255 || !proto::sse::valid_field(message.event)) return HubStatus::bad_event;
  if (message.event.starts_with(kReservedEventPrefix)) return HubStatus::reserved_event;
  if (message.data.starts_with(kReservedDataPrefix)) return HubStatus::reserved_data;
  if (message.key.size() > kMaxKeyBytes) return HubStatus::bad_key;
  return HubStatus::ok;
}

}  // namespace

// The server's own topics ($sys) carry snapshots that the next one makes
// stale: they keep only what fan-out needs, so that a dashboard left open
// holds a few pool blocks, not a full history's worth.
TopicRecord::TopicRecord(std::string_view topic, const HubLimits& limits, std::uint64_t first_id)
    : name(topic),
      next_id(first_id),
      history(topic.starts_with(kServerTopicMark) ? kMinKeptEvents : std::max(limits.history_events, kMinKeptEvents),
              limits.history_bytes) {}

TopicBook::TopicBook(buf::Pool& pool, const HubLimits& limits, std::string epoch)
    : pool_(pool), limits_(limits), epoch_(std::move(epoch)) {}

TopicBook::~TopicBook() = default;

bool TopicBook::publishable(const Message& message) { return message_status(message) == HubStatus::ok; }

std::size_t TopicBook::format_id(std::uint64_t seq, char* out) const { return format_event_id(epoch_, seq, out); }

std::size_t TopicBook::topic_count() const {
  const std::shared_lock lock(topics_mutex_);
  return topics_.size();
}

TopicRecord* TopicBook::find(std::string_view name) const {
  const std::shared_lock lock(topics_mutex_);
  const auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : it->second.get();
}

// A pin is taken only under the book's lock, so once reclaim_idle() (which
// holds it exclusively) has found a record unpinned and unlinked it, no new
// pin can appear.
TopicRef TopicBook::acquire(std::string_view name, HubStatus& status, TopicAllowance* allowance) {
  status = HubStatus::ok;
  {
    const std::shared_lock lock(topics_mutex_);
    if (const auto it = topics_.find(name); it != topics_.end()) {
      it->second->pins.fetch_add(1, std::memory_order_relaxed);
      return TopicRef(it->second.get());
    }
  }
  const bool server_topic =
      name.starts_with(kServerTopicMark) && proto::valid_topic_name(name.substr(1), limits_.max_topic_name);
  if (!server_topic && !proto::valid_topic_name(name, limits_.max_topic_name)) {
    status = HubStatus::bad_topic;
    return {};
  }
  return TopicRef(create(name, status, allowance));
}

std::size_t TopicBook::charged_count(std::uint64_t address) const {
  const auto it = charged_by_address_.find(address);
  return it == charged_by_address_.end() ? 0 : it->second;
}

// A topic is charged once: after that, one load. At the limit, idle topics
// are reclaimed first (only those whose history has aged, as at
// topics.max), so that names an address followed and left give their
// places back.
HubStatus TopicBook::charge_follower(TopicRecord& record, const TopicAllowance* allowance) {
  const std::uint64_t address = allowance != nullptr ? allowance->address : 0;
  if (address == 0 || limits_.max_first_followed_per_address == 0 || record.outside_limit ||
      record.charged_to.load(std::memory_order_acquire) != 0) {
    return HubStatus::ok;
  }
  const std::unique_lock lock(topics_mutex_);
  if (record.charged_to.load(std::memory_order_relaxed) != 0) return HubStatus::ok;
  if (charged_count(address) >= limits_.max_first_followed_per_address) reclaim_idle();
  if (charged_count(address) >= limits_.max_first_followed_per_address) return HubStatus::too_many_from_address;
  record.charged_to.store(address, std::memory_order_release);
  ++charged_by_address_[address];
  return HubStatus::ok;
}

// Returns the record pinned, or nullptr with `status` saying why.
TopicRecord* TopicBook::create(std::string_view name, HubStatus& status, TopicAllowance* allowance) {
  const std::unique_lock lock(topics_mutex_);
  if (const auto it = topics_.find(name); it != topics_.end()) {  // another thread won
    it->second->pins.fetch_add(1, std::memory_order_relaxed);
    return it->second.get();
  }
  if (allowance != nullptr && allowance->left == 0) {
    status = HubStatus::too_many_created;
    return nullptr;
  }
  // The server's own topics (a fixed few, made only by the server) take
  // none of the places topics.max gives the clients'; past a few more than
  // it has, they count as any topic, so that no route missing a check on
  // its names could make topics without bound.
  constexpr std::size_t kServerTopicsOutsideLimit = 8;
  const bool server_topic = name.starts_with(kServerTopicMark) && server_topics_ < kServerTopicsOutsideLimit;
  if (!server_topic && client_topics() >= limits_.max_topics) reclaim_idle();
  if (!server_topic && client_topics() >= limits_.max_topics) {
    status = HubStatus::too_many_topics;
    return nullptr;
  }
  if (server_topic) ++server_topics_;
  auto record = std::make_unique<TopicRecord>(name, limits_, first_id_);
  TopicRecord* raw = record.get();
  raw->outside_limit = server_topic;

  raw->pins.store(1, std::memory_order_relaxed);
  raw->order_index = topics_in_order_.size();
  topics_.emplace(raw->name, std::move(record));
  topics_in_order_.push_back(raw);
  if (allowance != nullptr) --allowance->left;
  return raw;
}

// Under the book's exclusive lock. The record's own lock is only tried: a
// publisher takes a topic's lock before the book's (evict_in_turn), so
// waiting for it here could deadlock; a topic whose lock is held is in use
// anyway.
bool TopicBook::reclaimable(TopicRecord& record, std::chrono::steady_clock::time_point now) const {
  if (record.pins.load(std::memory_order_acquire) != 0 || record.queued.load(std::memory_order_acquire) != 0) {
    return false;
  }
  const std::unique_lock lock(record.mutex, std::try_to_lock);
  if (!lock.owns_lock() || record.subscribers != 0 || record.loop_mask != 0) return false;
  if (record.history.empty()) return true;
  return now - record.last_publish >= std::chrono::milliseconds(limits_.history_ttl_ms);
}

// Called at topics.max, under the book's exclusive lock. Looks at a bounded
// number of topics from where the last call stopped, so a client knocking
// at a full book costs a bounded scan, and frees every idle one it finds.
void TopicBook::reclaim_idle() {
  constexpr std::size_t kScan = 1024;
  const auto now = std::chrono::steady_clock::now();
  const std::size_t look = std::min(kScan, topics_in_order_.size());
  for (std::size_t step = 0; step < look && !topics_in_order_.empty(); ++step) {
    if (reclaim_cursor_ >= topics_in_order_.size()) reclaim_cursor_ = 0;
    TopicRecord& record = *topics_in_order_[reclaim_cursor_];
    if (reclaimable(record, now)) {
      unlink(record);  // the last topic moved into this place: looked at next
    } else {
      ++reclaim_cursor_;
    }
  }
}

// Under the book's exclusive lock, with nothing holding the record: its
// history goes back to the pool with it. Later topics start past its ids.
void TopicBook::unlink(TopicRecord& record) {
  first_id_ = std::max(first_id_, record.next_id);
  if (const std::uint64_t charged = record.charged_to.load(std::memory_order_relaxed); charged != 0) {
    const auto entry = charged_by_address_.find(charged);
    if (--entry->second == 0) charged_by_address_.erase(entry);
  }
  TopicRecord* last = topics_in_order_.back();
  topics_in_order_[record.order_index] = last;
  last->order_index = record.order_index;
  topics_in_order_.pop_back();
  reclaimed_.fetch_add(1, std::memory_order_relaxed);
  if (record.outside_limit) --server_topics_;
  topics_.erase(topics_.find(std::string_view(record.name)));
}

HubStatus check_publishable(std::string_view topic, const Message& message, std::size_t max_topic_name) {
  if (const HubStatus status = message_status(message); status != HubStatus::ok) return status;
  if (!proto::valid_topic_name(topic, max_topic_name)) return HubStatus::bad_topic;
  return HubStatus::ok;
}

PublishResult TopicBook::publish(std::string_view name, const Message& message, FrameScratch* scratch,
                                 TopicAllowance* allowance, const RoomRule* room) {
  if (name.starts_with(kServerTopicMark)) return {HubStatus::bad_topic};
  return publish_any(name, message, scratch, allowance, room);
}

PublishResult TopicBook::publish_server(std::string_view name, const Message& message) {
  if (!name.starts_with(kServerTopicMark)) return {HubStatus::bad_topic};
  return publish_any(name, message, nullptr, nullptr, nullptr);
}

// Under the book's shared lock, so no topic is reclaimed while it is read.
void TopicBook::sample_topics(const std::function<void(std::string_view, std::size_t, std::uint64_t)>& fn) const {
  const std::shared_lock lock(topics_mutex_);
  for (TopicRecord* record : topics_in_order_) {
    std::size_t subscribers = 0;
    std::uint64_t published = 0;
    {
      const std::lock_guard record_lock(record->mutex);
      subscribers = record->subscribers;
      published = record->next_id - 1;
    }
    fn(record->name, subscribers, published);
  }
}

void TopicBook::inspect_topics(const std::function<void(const TopicView&)>& fn) const {
  const std::shared_lock lock(topics_mutex_);
  for (TopicRecord* record : topics_in_order_) {
    const std::lock_guard record_lock(record->mutex);
    fn(view_of(*record));
  }
}

bool TopicBook::inspect_topic(std::string_view topic, const std::function<void(const TopicView&)>& fn) const {
  // The book's shared lock keeps the record from being unlinked and freed
  // while it is read, without pinning it (a pin would be a write).
  const std::shared_lock lock(topics_mutex_);
  const auto it = topics_.find(topic);
  if (it == topics_.end()) return false;
  const std::lock_guard record_lock(it->second->mutex);
  fn(view_of(*it->second));
  return true;
}

TopicView TopicBook::view_of(const TopicRecord& record) {
  return {record.name, record.subscribers, record.next_id - 1, record.last_publish, record.history};
}

PublishResult TopicBook::publish_any(std::string_view name, const Message& message, FrameScratch* scratch,
                                     TopicAllowance* allowance, const RoomRule* room) {
  if (const HubStatus status = message_status(message); status != HubStatus::ok) return {status};
  HubStatus status;
  const TopicRef ref = acquire(name, status, allowance);
  if (!ref) return {status};
  return publish_checked(*ref.get(), message, scratch, room);
}

PublishResult TopicBook::publish_to(TopicRecord& record, const Message& message, FrameScratch* scratch,
                                    const RoomRule* room) {
  if (record.name.starts_with(kServerTopicMark)) return {HubStatus::bad_topic};
  if (const HubStatus status = message_status(message); status != HubStatus::ok) return {status};
  return publish_checked(record, message, scratch, room);
}

PublishResult TopicBook::publish_checked(TopicRecord& record, const Message& message, FrameScratch* scratch,
                                         const RoomRule* room) {
  PublishResult result{HubStatus::ok};
  std::uint64_t mask = 0;
  // Read before the lock: push_locked() keeps the topic's stamps in order.
  const auto now = scratch != nullptr ? scratch->clock.now() : std::chrono::steady_clock::now();
  {
    const std::lock_guard lock(record.mutex);
    result.status = push_locked(record, message, scratch, room, now, result.id);
    result.subscribers = record.subscribers;
    mask = record.loop_mask;
  }
  if (result.status == HubStatus::ok) notify_loops(record, mask);
  return result;
}

RunResult TopicBook::publish_run(std::string_view name, std::span<const Message> messages, const RoomRule* room) {
  if (messages.empty()) return {HubStatus::ok};
  if (name.starts_with(kServerTopicMark)) return {HubStatus::bad_topic};
  if (const HubStatus status = message_status(messages.front()); status != HubStatus::ok) return {status};
  HubStatus status;
  const TopicRef ref = acquire(name, status, nullptr);
  if (!ref) return {status};
  TopicRecord& record = *ref.get();
  ScratchPool::Lease scratch = scratch_pool_.lend();
  RunResult result{HubStatus::ok};
  std::uint64_t mask = 0;
  {
    const std::lock_guard lock(record.mutex);
    // One time for the run: its events were handed over together.
    const auto now = std::chrono::steady_clock::now();
    for (const Message& message : messages) {
      std::uint64_t id = 0;
      result.status = message_status(message);
      if (result.status == HubStatus::ok) result.status = push_locked(record, message, &*scratch, room, now, id);
      if (result.status != HubStatus::ok) {
        // No room that the run's own events take: the loops are told of
        // them only at its end, so none can have delivered them, nor can
        // they give way. The run ends there, as ok; the rest goes in a run
        // of its own, as publishing one by one lets the loops deliver in
        // between.
        // Busy with every event before the run delivered: the event would
        // push out the run's own.
        const bool own = result.published != 0 &&
                         (record.history.oldest_seq() >= result.first_id ||
                          (result.status == HubStatus::busy && delivered_before(record, result.first_id)));
        if (own && (result.status == HubStatus::busy || result.status == HubStatus::no_memory)) {
          result.status = HubStatus::ok;
        }
        break;
      }
      if (result.published++ == 0) result.first_id = id;
      result.last_id = id;
    }
    result.subscribers = record.subscribers;
    mask = record.loop_mask;
  }
  if (result.published != 0) notify_loops(record, mask);
  return result;
}

HubStatus TopicBook::push_locked(TopicRecord& record, const Message& message, FrameScratch* scratch,
                                 const RoomRule* room, std::chrono::steady_clock::time_point now, std::uint64_t& id) {
  if (room != nullptr && !has_room(record, *room)) return HubStatus::busy;
  KeptEvent event;
  // When the pool is short of blocks, kept history gives way: replay is a
  // convenience, the live event is the point. A packed event's block
  // comes back only with its slab-mates (events published about when it
  // was, so given way about when it is), so this may take several turns;
  // each gives one event up, and it ends when nothing more can go.
  while (!encode(record, 0, record.next_id, message, scratch, event)) {
    if (!evict_in_turn(&record)) return HubStatus::no_memory;
  }
  // Backpressure: a loop that has not delivered the oldest kept event yet
  // would lose it. The publisher waits for it instead (the loops never
  // block, so the wait is short).
  if (a_loop_lags(record, event.bytes(), false)) return HubStatus::busy;
  id = record.next_id++;
  event.seq = id;
  event.key = conflation_key(message.key);
  // Never before the event ahead of it: a publisher's clock may give a
  // reading a few microseconds old (PublishClock), or the publisher read
  // it before it waited for the lock, while another's event went first.
  event.published = std::max(now, record.last_publish);
  event.stamp_frames();
  record.last_publish = event.published;
  record.history.push(std::move(event));
  return HubStatus::ok;
}

TopicRef TopicBook::find_pinned(std::string_view name) const {
  const std::shared_lock lock(topics_mutex_);
  const auto it = topics_.find(name);
  if (it == topics_.end()) return {};
  it->second->pins.fetch_add(1, std::memory_order_relaxed);
  return TopicRef(it->second.get());
}

TopicBook::Append TopicBook::append(std::string_view name, std::uint64_t epoch, std::uint64_t seq,
                                    const Message& message, FrameScratch* scratch) {
  const TopicRef ref = find_pinned(name);
  if (!ref) return Append::accepted;
  TopicRecord* record = ref.get();
  std::uint64_t mask = 0;
  {
    const std::lock_guard lock(record->mutex);
    if (record->adopting && record->read_on && epoch == record->stream_epoch) {
      // Redis rewound the stream: the reader reads on after its newest.
      read_on_from(*record, seq - 1);
    } else if (record->adopting) {
      if (epoch <= record->stream_epoch) return Append::accepted;  // the lost stream's, read late
      record->stream_epoch = epoch;
      record->adopting = false;
      record->next_id = seq;
    } else if (record->stream_epoch == 0) {
      record->stream_epoch = epoch;
      if (record->history.empty()) record->next_id = seq;
    } else if (epoch < record->stream_epoch) {
      return Append::accepted;
    } else if (epoch > record->stream_epoch) {
      cut_history(*record, "stream-replaced");
      record->stream_epoch = epoch;
      record->next_id = seq;
      record->reset_base = seq - 1;
    }
    if (seq < record->next_id) return Append::accepted;  // another loop's reader brought it
    // Not a sluice publisher's (an event name that would break the SSE
    // framing, one that would pass for the server's notices, a key over
    // kMaxKeyBytes): passed
    // over, its id taken all the same, so that a subscriber who joins after
    // it is owed only what follows, and those who were there are told it
    // lost, with the next event (a hole in the history).
    if (!publishable(message)) {
      record->next_id = seq + 1;
      record->resume_start = false;
      return Append::accepted;
    }
    KeptEvent event;
    while (!encode(*record, epoch, seq, message, scratch, event)) {
      if (!evict_in_turn(record)) return Append::hold;
    }
    if (a_loop_lags(*record, event.bytes(), false)) return Append::hold;
    event.key = conflation_key(message.key);
    record->next_id = seq + 1;
    // Published here, for this node: when Redis gave it to us.
    event.published = std::chrono::steady_clock::now();
    event.stamp_frames();
    record->last_publish = event.published;
    record->history.push(std::move(event));
    record->resume_start = false;  // read from the resume point: it is the stream's now
    mask = record->loop_mask;
  }
  notify_loops(*record, mask);
  return Append::accepted;
}

// Only an event every loop has delivered may give way.
bool TopicBook::evict_delivered(TopicRecord& record) {
  return !record.history.empty() && !a_loop_lags(record, 0, true) && record.history.evict_oldest();
}

// The oldest delivered event of the next topic in turn, this one included,
// so that under a short pool every topic's history shrinks alike: the full
// history of an idle topic cannot refuse a new topic's publishes for good,
// and a busy topic does not only ever eat its own. False when a whole turn
// found nothing to give. A topic whose lock is held elsewhere is passed
// over rather than waited for: this thread holds `self`'s lock (when there
// is a `self`), and the other holder may be waiting for it.
bool TopicBook::evict_in_turn(TopicRecord* self) {
  const std::shared_lock lock(topics_mutex_);
  const std::size_t count = topics_in_order_.size();
  for (std::size_t step = 0; step < count; ++step) {
    TopicRecord& victim = *topics_in_order_[evict_cursor_.fetch_add(1, std::memory_order_relaxed) % count];
    if (&victim == self) {
      if (evict_delivered(victim)) return true;
      continue;
    }
    const std::unique_lock victim_lock(victim.mutex, std::try_to_lock);
    if (victim_lock.owns_lock() && evict_delivered(victim)) return true;
  }
  room_refusals_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

// The forms the topic's subscribers use (SSE while it has SSE subscribers,
// WebSocket), and the payload (one byte of event-name length, the name,
// the data) from which a loop builds any form nobody built here, unless
// the WebSocket message holds it (encode_forms()). All of them through
// one scratch, whose writer packs the small ones together: the caller's,
// or one lent for the call.
bool TopicBook::encode(const TopicRecord& record, std::uint64_t epoch, std::uint64_t id, const Message& message,
                       FrameScratch* scratch, KeptEvent& out) {
  if (scratch == nullptr) {
    ScratchPool::Lease lent = scratch_pool_.lend();
    return encode(record, epoch, id, message, &*lent, out);
  }
  return encode_forms(record.name, epoch, id, message, record.sse_subscribers != 0, record.form_subscribers, *scratch,
                      out);
}

bool TopicBook::encode_event(std::uint64_t epoch, std::uint64_t seq, const Message& message, FrameScratch& scratch,
                             KeptEvent& out) {
  return encode_forms({}, epoch, seq, message, true, {}, scratch, out);
}

// Every form is built from the message's own bytes, and the id is written
// only for a form that carries it (SSE, the /ws envelope). The WebSocket
// forms are built here, with the event, so that a pool too full for them
// refuses the publish (503) rather than dropping the event for those
// subscribers later.
bool TopicBook::encode_forms(std::string_view topic, std::uint64_t epoch, std::uint64_t seq, const Message& message,
                             bool with_sse, const std::array<std::size_t, kWsForms>& ws_subscribers,
                             FrameScratch& scratch, KeptEvent& out) {
  out.epoch = epoch;
  out.seq = seq;
  out.key = conflation_key(message.key);
  EventFrames frames(pool_, scratch, topic, id_text(out), message, out.payload);
  if (with_sse) {
    out.sse = frames.take(WireForm::sse);
    if (!out.sse) return false;
  }
  for (std::size_t i = 0; i < kWsForms; ++i) {
    if (ws_subscribers[i] == 0) continue;
    out.ws[i] = frames.take(ws_form_at(i));
    if (!out.ws[i]) return false;
  }
  // The frame every other form is built from, later (a loop's, a replay's),
  // unless the WebSocket message holds all it would: a payload frame of its
  // own cost one subscriber's small events about a tenth of their publish
  // and delivery.
  if (!message.event.empty() || !out.ws[ws_index(WireForm::ws_message)]) {
    out.payload = make_payload_frame(pool_, scratch.slabs, message);
    if (!out.payload) return false;
  }
  return true;
}

// Whether a loop has yet to deliver a kept event that is about to go: the
// oldest, evicted on purpose, or every one an event of `bytes` would push
// out. Checking only the oldest let one large event push out small ones
// behind it that a loop had not delivered yet (the history's byte bound).
bool TopicBook::a_loop_lags(const TopicRecord& record, std::size_t bytes, bool evicting) {
  const std::optional<std::uint64_t> newest =
      evicting ? std::optional<std::uint64_t>(record.history.oldest_seq()) : record.history.newest_evicted_by(bytes);
  return newest && !delivered_before(record, *newest + 1);
}

bool TopicBook::delivered_before(const TopicRecord& record, std::uint64_t seq) {
  for (std::uint64_t mask = record.loop_mask; mask != 0; mask &= mask - 1) {
    const auto loop = static_cast<unsigned>(std::countr_zero(mask));
    if (record.delivered[loop].load(std::memory_order_acquire) + 1 < seq) return false;
  }
  return true;
}

// Both sides use a read-modify-write of waiting_publishers, so they are
// ordered: if the deliverer's exchange comes first, it released the
// delivery the publisher's retry then sees; if the publisher's bit comes
// first, the exchange finds it and wakes that loop. (wait_for_room() sets
// the bit under the book's lock, so the record cannot be freed meanwhile.)
void TopicBook::wait_for_room(std::string_view name, unsigned loop) {
  const std::shared_lock lock(topics_mutex_);
  if (const auto it = topics_.find(name); it != topics_.end()) {
    it->second->waiting_publishers.fetch_or(std::uint64_t{1} << loop, std::memory_order_acq_rel);
  }
}

void TopicBook::wake_waiting_publishers(TopicRecord& record) {
  for (std::uint64_t mask = record.waiting_publishers.exchange(0, std::memory_order_acq_rel); mask != 0;
       mask &= mask - 1) {
    const auto loop = static_cast<unsigned>(std::countr_zero(mask));
    if (watchers_[loop] != nullptr) watchers_[loop]->room_made();
  }
}

// Under the topic's lock. How far each loop has delivered is read before
// the subscribers short of room: a loop marks those its delivery filled
// before it stores how far it delivered, so the marks read are at least as
// new as the lag.
bool TopicBook::has_room(const TopicRecord& record, const RoomRule& room) {
  const std::uint64_t newest = record.next_id - 1;
  for (std::uint64_t mask = record.loop_mask; mask != 0; mask &= mask - 1) {
    const auto loop = static_cast<unsigned>(std::countr_zero(mask));
    if (newest - record.delivered[loop].load(std::memory_order_acquire) >= room.max_lag) return false;
  }
  return record.short_of_room.load(std::memory_order_acquire) == 0;
}

void TopicBook::cut_stalled(TopicRecord& record) {
  std::uint64_t mask = 0;
  {
    const std::lock_guard lock(record.mutex);
    record.stall_cuts.fetch_add(1, std::memory_order_release);
    mask = record.loop_mask;
  }
  notify_loops(record, mask);
}

void TopicBook::notify_loops(TopicRecord& record, std::uint64_t mask) {
  while (mask != 0) {
    const auto loop = static_cast<unsigned>(std::countr_zero(mask));
    mask &= mask - 1;
    // Told once until drained: a busy topic costs one wake-up per loop tick,
    // not one per event. Counted in `queued` before the push, so the count
    // never dips below the entries a loop may still pop.
    //
    // A flag seen set needs no locked exchange (one per event otherwise).
    // A loop clears it before it takes the topic's lock to drain: a drain
    // that took the lock before this event went in cleared it before, so a
    // flag seen set after is one some drain has yet to clear, and that
    // drain takes the lock after this event went in, and finds it.
    std::atomic<bool>& pending = record.pending[loop];
    if (pending.load(std::memory_order_acquire)) continue;
    if (!pending.exchange(true, std::memory_order_acq_rel) && watchers_[loop] != nullptr) {
      record.queued.fetch_add(1, std::memory_order_relaxed);
      if (!watchers_[loop]->topic_changed(&record)) record.queued.fetch_sub(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace sluice::hub
