// Owns: TopicBook, the topics every loop shares: each topic's id counter, its
// history of recent events, and which loops have subscribers for it.
//
// Publishing, from any thread: under the topic's lock the event gets the
// next id, is encoded once in each wire form some subscriber of the topic
// uses (SSE, WebSocket), kept with its payload (in a frame of its own, or
// in its WebSocket message when it has no event name) and appended to the
// history; then each loop with subscribers is told, once, that the topic
// has news. A form nobody used at publish is built from the payload by the
// loop that first needs it. A loop reads the events it has not
// delivered yet straight from the history, in id order, so no per-event
// queue between threads can overflow, and a loop that falls further behind
// than the history reaches knows exactly which ids it missed.
//
// Reclaiming a topic. A topic nobody follows is freed when a new one needs
// its place (at topics.max), once its newest event is history.ttl_ms old or
// it kept none. Three kinds of holder may still have the record's address,
// and each is counted on the record, so that the book frees it only when
// all three counts are zero, checked under the book's exclusive lock:
//  - a publisher or a subscribe on any thread, between the lookup and its
//    last touch: a TopicRef pins the record, and only a lookup under the
//    book's lock hands one out, so no new pin appears once it is unlinked;
//  - a loop that follows the topic: its bit in loop_mask and its count in
//    `subscribers` (a loop forgets its entry for the record before it
//    clears its bit);
//  - a loop's inbox entry saying the topic has news: counted in `queued`
//    from the push until the loop has drained it.
// No loop is asked to acknowledge anything, so an idle loop delays
// nothing; a loop never reads a record it does not hold by one of these.
//
// Ids never repeat within an epoch: a topic made again after it was freed
// starts past every id any freed topic gave, so a client resuming from an
// id of the old topic is told "too-old" (a reset notice), never handed the
// new topic's events as if nothing came between.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "buf/pool.hpp"
#include "hub/event_frames.hpp"
#include "hub/history.hpp"
#include "hub/hub_types.hpp"
#include "hub/publish_gate.hpp"
#include "proto/topic_name.hpp"

namespace sluice::hub {

inline constexpr unsigned kMaxLoops = 64;
// Events each topic keeps at least, whatever history.max_events says: the
// loops read fan-out from the history, so it must span a loop's slowest tick.
inline constexpr std::size_t kMinKeptEvents = 64;

using proto::kServerTopicMark;

// What a reset says of the stream the topic was read from: `gone` (Redis
// lost or replaced it: an event read later under its epoch is a stale copy
// and is passed over), `read_on` (Redis came back from an older copy of the
// stream: the same epoch goes on, and the events the reader hands over from
// its new position are the topic's), `refused` (Redis refused the key, not
// a stream: as `read_on` once the reader can read it again, and until then
// each subscriber that joins is told so at once and has the reader try the
// key again), or `stopped` (the reader could not follow the topic,
// broker-full: the same epoch goes on, and when the reader follows it again
// it reads from the last id this node had, so only what Redis no longer
// holds is lost).
enum class StreamAfterReset : std::uint8_t { gone, read_on, refused, stopped };

struct TopicRecord {
  TopicRecord(std::string_view topic, const HubLimits& limits, std::uint64_t first_id);

  const std::string name;
  // Holders of the address that keep the record from being freed (see
  // the banner): TopicRefs, and inbox entries not yet drained.
  std::atomic<std::uint32_t> pins{0};
  std::atomic<std::uint32_t> queued{0};
  std::size_t order_index = 0;  // its place in the book's topics_in_order_ (book's lock)
  bool outside_limit = false;    // a server topic, not counted against topics.max (set at creation)
  // The TopicAllowance::address charged for the topic's first follower,
  // until the topic is freed (charge_follower()); 0: none. Written under the
  // book's lock.
  std::atomic<std::uint64_t> charged_to{0};
  std::mutex mutex;  // guards the fields below it
  std::uint64_t next_id;
  std::chrono::steady_clock::time_point last_publish{};
  History history;
  std::uint64_t loop_mask = 0;          // loops with subscribers
  std::size_t subscribers = 0;          // across every loop
  std::size_t sse_subscribers = 0;       // the SSE form is built at publish only while there are some
  std::array<std::size_t, kWsForms> form_subscribers{};  // by ws_index(): forms in use, built at publish
  std::array<std::atomic<bool>, kMaxLoops> pending{};  // loop told, not yet drained
  // The last seq each following loop has handed over; publish() refuses to
  // push an event out of the history before every loop has delivered it.
  std::array<std::atomic<std::uint64_t>, kMaxLoops> delivered{};
  // Loops holding a publisher that was told `busy`: the loop that delivers
  // next wakes them, so a held publisher waits for room, not for a timer.
  std::atomic<std::uint64_t> waiting_publishers{0};
  // Publisher flow control (RoomRule, PublishGate): the fifo subscribers of
  // the topic, on every loop, short of room (their queue past half its
  // budget, until it is back at a quarter), and the publishers waiting for
  // room. `stall_cuts` counts the waits that ran out: each loop that sees
  // it move cuts off its subscribers still short of room (Subscriber::stalled).
  std::atomic<std::uint32_t> short_of_room{0};
  std::atomic<std::uint32_t> room_waiters{0};
  std::atomic<std::uint32_t> stall_cuts{0};
  // With a broker, the topic's events are its Redis Stream's (append()):
  // stream_epoch is that stream's epoch, 0 until a reader has found where
  // it stands. A reset (the stream replaced or lost) empties the history,
  // counts in `resets`, and the next stream's events follow `reset_base`;
  // each loop tells its subscribers `reset_reason` when it sees the count
  // move, unless it saw the reset that set `reset_reason` already (its
  // count is `reason_count`: a rebase after it is silent for that loop,
  // and still tells a loop that has not drained since the reason came).
  // `adopting`: after a reset, the next epoch met is taken as the new
  // stream's without a second reset. `read_on`: the reset does not say the
  // stream is gone (the reader stopped, or Redis rewound it), so the same
  // epoch is taken too, from where the reader stands; `read_on_base` is the
  // last of its ids this node had, so a stretch the reader skipped after
  // it is reported as lost.
  // `reader_stopped`: the reset was `stopped` and the reader does not read
  // the topic; a subscriber with no id that joins meanwhile is owed what
  // comes after the place the reader finds when it follows the topic again
  // (`place_seq`: the stream's newest then), so it waits for it as for a
  // first place and is told of no gap from before it joined.
  // `resume_start`: no reader has found the stream yet, and a resuming
  // client set where the topic begins (start_at_resume_point); the reader
  // reads from there rather than from the stream's newest event.
  // `reader_refused`: Redis refused the key (StreamAfterReset::refused) and
  // the reader has not read it since (stream_started(), or a reset of
  // another kind, ends it). Kept when every subscriber leaves: the next to
  // join is told, and its join is what has the key tried again.
  // `reader_placed`: this node's reader knows where the stream stands (it
  // located it, or checked it continues where the reader reads from, its
  // newest then `place_seq`), or has told the subscribers why it cannot. A
  // subscriber that joins before then with no id of its own is owed what
  // comes after that place, so its answer (SSE head, /ws ack) waits for it
  // (Subscriber::placed): an event published once the client holds its
  // answer is then always after the place, on whichever node it was published.
  std::uint64_t stream_epoch = 0;
  bool adopting = false;
  bool read_on = false;
  std::uint64_t read_on_base = 0;
  bool reader_stopped = false;
  bool reader_refused = false;
  std::uint64_t place_seq = 0;
  bool resume_start = false;
  bool reader_placed = false;
  std::uint64_t resets = 0;
  std::uint64_t reset_base = 0;
  const char* reset_reason = nullptr;
  std::uint64_t reason_count = 0;
};

// The epoch of the stream a subscriber joining now follows, as its answer
// names it (a /ws ack's `last_id`): 0 while none is known, which includes
// the time after a reset until the next stream is read (`adopting`: the
// epoch still recorded is the lost stream's, and an id of it would send a
// client resuming elsewhere to a stream that no longer continues). Under
// the topic's lock.
[[nodiscard]] inline std::uint64_t current_stream(const TopicRecord& record) {
  return record.adopting ? 0 : record.stream_epoch;
}

// A loop that must be told when a topic it follows has new events. Called
// from the publishing thread, at most once until the loop drains the topic.
class TopicWatcher {
 public:
  // Returns whether the record went into the loop's inbox; if so the loop
  // calls Hub::drain(record) for it, whatever else it drains meanwhile.
  [[nodiscard]] virtual bool topic_changed(TopicRecord* record) = 0;
  // A loop delivered events of a topic this loop's publishers wait on.
  virtual void room_made() = 0;

 protected:
  ~TopicWatcher() = default;
};

// One topic as the admin API reads it: valid only during the call it is
// handed to, under the topic's lock.
struct TopicView {
  std::string_view name;
  std::size_t subscribers = 0;
  std::uint64_t published = 0;  // events published to it, kept or not
  std::chrono::steady_clock::time_point last_publish{};  // epoch when none
  const History& history;
};

// A pinned record: it is not freed while this lives. Move-only.
class TopicRef {
 public:
  TopicRef() = default;
  explicit TopicRef(TopicRecord* record) : record_(record) {}
  TopicRef(TopicRef&& other) noexcept : record_(std::exchange(other.record_, nullptr)) {}
  TopicRef& operator=(TopicRef&& other) noexcept {
    std::swap(record_, other.record_);
    return *this;
  }
  ~TopicRef() {
    if (record_ != nullptr) record_->pins.fetch_sub(1, std::memory_order_release);
  }
  [[nodiscard]] TopicRecord* get() const { return record_; }
  TopicRecord* operator->() const { return record_; }
  explicit operator bool() const { return record_ != nullptr; }

 private:
  TopicRecord* record_ = nullptr;
};

class TopicBook {
 public:
  // `pool` must outlive the book. `epoch` names this run in every event id.
  TopicBook(buf::Pool& pool, const HubLimits& limits, std::string epoch);
  ~TopicBook();
  TopicBook(const TopicBook&) = delete;
  TopicBook& operator=(const TopicBook&) = delete;

  // Before serving: the watcher of loop `loop` (< kMaxLoops).
  void set_watcher(unsigned loop, TopicWatcher* watcher) { watchers_[loop] = watcher; }

  // Any thread. Never allocates once the topic exists. The WebSocket forms
  // in use are built with `scratch`, the caller's (a loop passes its own);
  // without one, the book lends one of its own for the call.
  // A new topic is charged to `allowance` when there is one
  // (too_many_created when it is spent). With `room`, the publish answers
  // busy, taking nothing, while the topic has no room under it.
  [[nodiscard]] PublishResult publish(std::string_view topic, const Message& message,
                                      FrameScratch* scratch = nullptr, TopicAllowance* allowance = nullptr,
                                      const RoomRule* room = nullptr);
  // publish() to a topic the caller holds pinned (a TopicRef from
  // acquire(), kept by a publisher of one topic): no look-up, no pin.
  // `scratch` as for publish(); a server topic is refused as publish()
  // refuses it.
  [[nodiscard]] PublishResult publish_to(TopicRecord& record, const Message& message, FrameScratch* scratch,
                                         const RoomRule* room = nullptr);
  // publish() for several events of one topic, in order: one look-up, one
  // hold of the topic's lock, one clock read and at most one wake-up per
  // loop for the whole run. Stops at the first event refused (a bad name,
  // no memory, no room under `room`, a loop that lags), publishing those
  // before it, and early (as ok) where the run's own events take the room
  // it needs (RunResult). The lock is held while the run is encoded, so a
  // caller keeps runs short (Server::publish_batch cuts them at
  // kMaxRunEvents).
  [[nodiscard]] RunResult publish_run(std::string_view topic, std::span<const Message> messages,
                                      const RoomRule* room = nullptr);
  // Any thread: the server's own topics, named kServerTopicMark + a valid
  // name ("$sys"). publish() refuses those names, so no client can write
  // there; a client may follow one (a subscription can name it).
  [[nodiscard]] PublishResult publish_server(std::string_view topic, const Message& message);
  // What a broker's reader found, on the loop that reads the topic. The
  // topic exists (a loop follows it) or the call does nothing.
  enum class Append : std::uint8_t { accepted, hold };
  // Event `seq` of the topic's stream `epoch`: appended under that id when
  // it is the next one (a later one leaves a hole its loops report as lost;
  // an earlier one, or one of an older stream, was appended already by
  // another loop's reader and is passed over). After a reset, a newer
  // epoch is taken, and the lost one only if the reset left it going on
  // (StreamAfterReset::read_on). `hold`: a loop has yet to deliver what it
  // would push out; nothing was appended.
  [[nodiscard]] Append append(std::string_view topic, std::uint64_t epoch, std::uint64_t seq, const Message& message,
                              FrameScratch* scratch);
  // The reader reads the topic after event `seq` of stream `epoch` (0: the
  // stream does not exist yet). Returns the seq the reader must read after:
  // `seq`, or an earlier one of the same stream when a resuming client set
  // the topic's start there (start_at_resume_point). A stream that is not
  // the one the client named is a reset, told.
  // The topic counts as placed from here on (TopicRecord::reader_placed)
  // and every loop hears of it.
  [[nodiscard]] std::uint64_t stream_started(std::string_view topic, std::uint64_t epoch, std::uint64_t seq);
  // The reader follows a `stopped` topic again, from the last id this node
  // had (FollowState::stopped): the topic goes on from there, every loop
  // rebases its subscribers to it, and a subscriber that joined while it
  // was stopped waits for stream_placed(). False, and nothing done, when
  // the topic is no longer stopped.
  [[nodiscard]] bool reader_follows_again(std::string_view topic);
  // The reader found the stream continuing where it reads the topic from,
  // its newest event being `seq` of `epoch`: a topic not placed yet (one
  // followed again after it was stopped) is placed there, and whoever
  // waits for the place is owed what comes after `seq`.
  void stream_placed(std::string_view topic, std::uint64_t epoch, std::uint64_t seq);
  // The reader may stop reading the topic: true, and the topic is no
  // longer placed, when no loop follows it (checked under its lock); false
  // when a loop has followed it again since the reader looked.
  [[nodiscard]] bool reader_leaves(std::string_view topic);
  // Under the topic's lock, on a record no reader has found in its stream
  // yet (nothing kept): a client resumes after `seq` of stream `epoch`, so
  // the topic begins there (or earlier, for an earlier resume point), and
  // the reader reads every event after it. True when the client is owed
  // seq+1.. from the reader; false when the record is past that (the
  // client's id is judged against the history).
  static bool start_at_resume_point(TopicRecord& record, std::uint64_t epoch, std::uint64_t seq);
  // What comes next does not continue what came before: the history is
  // emptied and every loop tells its subscribers `reason` (a literal).
  // `after`: whether the stream's epoch can still bring events.
  void stream_reset(std::string_view topic, const char* reason, StreamAfterReset after);
  // Where a broker's reader of the topic stands in the book: whether any
  // loop follows it, and the last event kept of stream `epoch` (0: none
  // read yet). `stopped`: the reader could not follow it (a `stopped`
  // reset); `epoch` and `last` are then the stream and the last id this
  // node had, to be read on from.
  struct FollowState {
    bool followed = false;
    std::uint64_t epoch = 0;
    std::uint64_t last = 0;
    std::size_t subscribers = 0;  // across every loop of this node
    bool stopped = false;
    // Redis refused the key: epoch and last are the last event this node
    // had of it (0, 0 for a stream it never had), where reading goes on.
    bool refused = false;
  };
  [[nodiscard]] FollowState follow_state(std::string_view topic) const;
  // Any thread: fn(name, subscribers, events published) for every topic,
  // each read under its topic's lock, held only for the read.
  void sample_topics(const std::function<void(std::string_view, std::size_t, std::uint64_t)>& fn) const;
  // Any thread: fn(view) for every topic, or for `topic` alone (false when
  // there is no such topic; it is never made). Each is read under its
  // topic's lock, held for the call, as sample_topics() does: `fn` copies
  // what it needs and returns (no allocation, no formatting under it).
  void inspect_topics(const std::function<void(const TopicView&)>& fn) const;
  bool inspect_topic(std::string_view topic, const std::function<void(const TopicView&)>& fn) const;
  // Any thread: the topic, made if need be (charged to `allowance`, if
  // any), pinned while the TopicRef lives. At topics.max, idle topics are
  // reclaimed to make room.
  [[nodiscard]] TopicRef acquire(std::string_view topic, HubStatus& status, TopicAllowance* allowance = nullptr);
  // Any thread, before a subscriber joins `record` (held): the address of
  // its first follower is charged for it until it is freed, and may hold
  // only HubLimits::max_first_followed_per_address topics so: subscriptions
  // from one address, over as many connections as it may open, would
  // otherwise hold every place in topics.max by following names nobody
  // publishes to. Charged at the first follow, not at the making, so a
  // client that may publish gains nothing by making the topic with a
  // publish first. too_many_from_address when the address holds all it
  // may (after idle topics were reclaimed); ok otherwise, and at once for
  // a topic charged already, a server topic, an allowance with no address
  // or a limit of 0.
  [[nodiscard]] HubStatus charge_follower(TopicRecord& record, const TopicAllowance* allowance);
  // Any thread; nullptr when there is no such topic. The address is only
  // safe to follow for a caller that holds the record some other way (a
  // loop that follows the topic); anyone else must acquire() it.
  [[nodiscard]] TopicRecord* find(std::string_view topic) const;
  // Any thread: the topic if there is one (never made), pinned while the
  // TopicRef lives.
  [[nodiscard]] TopicRef find_pinned(std::string_view name) const;
  // Loop `loop` holds a publisher of `topic` that was refused as busy; it
  // is told by room_made() once any loop has delivered more of the topic.
  void wait_for_room(std::string_view topic, unsigned loop);
  // Called by a loop after it delivered events of `record`.
  void wake_waiting_publishers(TopicRecord& record);
  // Where publishers waiting for room sleep (Server::publish_waiting); a
  // loop tells it of room on a record with room_made(record.room_waiters).
  [[nodiscard]] PublishGate& gate() { return gate_; }
  // Any thread holding `record` (a TopicRef): a wait for room on it ran
  // out. Every loop that follows it cuts off, at its next drain, the fifo
  // subscribers still short of room.
  void cut_stalled(TopicRecord& record);

  // The pool is short for something other than an event (a request body
  // being read): the oldest delivered event of the next topic in turn
  // gives way, as for a publish. False when none could.
  [[nodiscard]] bool give_way_in_turn() { return evict_in_turn(nullptr); }
  // Whether a publisher may send `message`: what Redis hands a reader is
  // checked as a publish is, since anything that reaches Redis can write
  // its streams.
  [[nodiscard]] static bool publishable(const Message& message);
  // Encodes an event of `epoch` (0: this run's) as the payload every other
  // form is built from, and as SSE, with `scratch` (the caller's, a loop's);
  // false when the pool is out of room.
  [[nodiscard]] bool encode_event(std::uint64_t epoch, std::uint64_t seq, const Message& message,
                                  FrameScratch& scratch, KeptEvent& out);

  [[nodiscard]] const std::string& epoch() const { return epoch_; }
  [[nodiscard]] const HubLimits& limits() const { return limits_; }
  [[nodiscard]] buf::Pool& pool() { return pool_; }
  // Writes "EPOCH:SEQ" into `out` (kMaxIdText bytes); returns its length.
  std::size_t format_id(std::uint64_t seq, char* out) const;
  // The id of a kept event, in the epoch it was kept with, written only
  // when asked.
  [[nodiscard]] EventIdText id_text(const KeptEvent& event) const { return {epoch_, event.epoch, event.seq}; }
  [[nodiscard]] std::size_t topic_count() const;
  // Topics freed so far (they made room for new ones).
  [[nodiscard]] std::uint64_t reclaimed() const { return reclaimed_.load(std::memory_order_relaxed); }
  // Times the pool was short and no kept event could give way: what holds
  // it is queued for subscribers, not kept for replay. A pool merely full
  // of history does not count; history gives way to whatever needs room.
  [[nodiscard]] std::uint64_t room_refusals() const { return room_refusals_.load(std::memory_order_relaxed); }

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  [[nodiscard]] static TopicView view_of(const TopicRecord& record);
  [[nodiscard]] PublishResult publish_any(std::string_view topic, const Message& message, FrameScratch* scratch,
                                          TopicAllowance* allowance, const RoomRule* room);
  // A message already checked, to a topic held for the call.
  [[nodiscard]] PublishResult publish_checked(TopicRecord& record, const Message& message, FrameScratch* scratch,
                                              const RoomRule* room);
  // Under the record's lock: `message` as the topic's next event, published
  // at `now`, or why not (nothing taken then).
  [[nodiscard]] HubStatus push_locked(TopicRecord& record, const Message& message, FrameScratch* scratch,
                                      const RoomRule* room, std::chrono::steady_clock::time_point now,
                                      std::uint64_t& id);
  [[nodiscard]] static bool has_room(const TopicRecord& record, const RoomRule& room);
  [[nodiscard]] bool encode(const TopicRecord& record, std::uint64_t epoch, std::uint64_t id, const Message& message,
                            FrameScratch* scratch, KeptEvent& out);
  // The event's SSE form `with_sse`, each WebSocket form that
  // `ws_subscribers` (by ws_index()) counts subscribers for, and its
  // payload unless its WebSocket message holds it (KeptEvent).
  [[nodiscard]] bool encode_forms(std::string_view topic, std::uint64_t epoch, std::uint64_t seq,
                                  const Message& message, bool with_sse,
                                  const std::array<std::size_t, kWsForms>& ws_subscribers, FrameScratch& scratch,
                                  KeptEvent& out);
  void notify_loops(TopicRecord& record, std::uint64_t loop_mask);
  [[nodiscard]] static bool a_loop_lags(const TopicRecord& record, std::size_t bytes, bool evicting);
  // Every loop has delivered every event before `seq`.
  [[nodiscard]] static bool delivered_before(const TopicRecord& record, std::uint64_t seq);
  [[nodiscard]] static bool evict_delivered(TopicRecord& record);
  [[nodiscard]] bool evict_in_turn(TopicRecord* self);
  TopicRecord* create(std::string_view name, HubStatus& status, TopicAllowance* allowance);
  [[nodiscard]] std::size_t charged_count(std::uint64_t address) const;  // the book's lock
  static void cut_history(TopicRecord& record, const char* reason);
  static void read_on_from(TopicRecord& record, std::uint64_t position);
  [[nodiscard]] bool reclaimable(TopicRecord& record, std::chrono::steady_clock::time_point now) const;
  void reclaim_idle();
  void unlink(TopicRecord& record);
  [[nodiscard]] std::size_t client_topics() const { return topics_.size() - server_topics_; }  // the book's lock

  buf::Pool& pool_;
  HubLimits limits_;
  std::string epoch_;
  mutable std::shared_mutex topics_mutex_;
  std::unordered_map<std::string, std::unique_ptr<TopicRecord>, NameHash, std::equal_to<>> topics_;
  std::vector<TopicRecord*> topics_in_order_;  // for evict_in_turn and reclaim_idle
  std::atomic<std::size_t> evict_cursor_{0};
  std::size_t reclaim_cursor_ = 0;  // the book's lock
  std::size_t server_topics_ = 0;   // the book's lock: the records outside topics.max
  // The topics each address is charged for (charge_follower()), still in
  // the book (the book's lock): bounded by the topics themselves.
  std::unordered_map<std::uint64_t, std::size_t> charged_by_address_;
  // The first id of a topic made from now on: past every id a freed topic
  // gave (the book's lock).
  std::uint64_t first_id_ = 1;
  std::atomic<std::uint64_t> reclaimed_{0};
  std::atomic<std::uint64_t> room_refusals_{0};
  std::array<TopicWatcher*, kMaxLoops> watchers_{};
  ScratchPool scratch_pool_;  // for publishers that bring no scratch of their own
  PublishGate gate_;
};

}  // namespace sluice::hub
