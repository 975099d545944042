// Owns: Hub, one loop's view of the topics: which of its connections follow
// which topic, how far this loop has delivered each topic, and handing each
// new event to every local subscriber.
//
// Events come from the shared TopicBook: drain() reads what this loop has
// not delivered yet from the topic's history and delivers it in id order.
// A subscriber may unsubscribe, or close, from inside deliver(): removal
// during a delivery is recorded and applied when it ends.
//
// Everything here runs on the loop's thread; publish() forwards to the book.
//
// The loop keeps an entry for a topic only while it follows it: the entry
// goes (and then the loop's bit in the record) when its last local
// subscriber leaves, never during a delivery, so that the book may free a
// topic nobody follows (see TopicBook).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hub/event_frames.hpp"
#include "hub/event_id.hpp"
#include "hub/event_runs.hpp"
#include "hub/hub_types.hpp"
#include "hub/topic_book.hpp"
#include "proto/ws_deflate.hpp"

namespace sluice::hub {

class Hub {
 public:
  // `book` must outlive the hub; `loop` is this loop's index (< kMaxLoops).
  Hub(TopicBook& book, unsigned loop);
  ~Hub();
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  // `cookie` comes back in every Delivery for this topic (the subscriber's
  // own index for it, say). A new subscriber gets events published after
  // it subscribed.
  // `form` is the wire form the subscriber takes: the WebSocket forms in
  // use are built by the publisher, with the event.
  // A new topic is charged to `allowance`, when given.
  [[nodiscard]] HubStatus subscribe(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie = 0,
                                    WireForm form = WireForm::sse, TopicAllowance* allowance = nullptr);
  // Subscribes, then at once hands `subscriber` every kept event after
  // `last_id` in order; the live stream continues after the last of them,
  // with no event missing between the two and none twice. An empty
  // `last_id` is none: a subscribe() that answers ReplayResult::newest.
  // A replay longer than `page` is handed over up to it, and the
  // subscriber is parked (ReplayResult::paged) until its owner asks for
  // the next page (attach()).
  [[nodiscard]] ReplayResult subscribe_after(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie,
                                             std::string_view last_id, WireForm form = WireForm::sse,
                                             TopicAllowance* allowance = nullptr, ReplayPage page = {});
  // A subscriber that subscribe_after() parked has had the events up to
  // `after` of stream `epoch` (from Redis, or its last page): the kept
  // events after it are handed over, at most `page` of them, and it goes
  // live once the last is; or the caller is told to fetch more (a
  // broker's topic whose history moved past after+1; a topic of this node
  // only hands over what it still keeps, the rest told as lost, unless
  // the subscriber is `lossless`: then it is told it was overtaken), or
  // (the stream moved on) it goes live and is told why not.
  [[nodiscard]] AttachResult attach(std::string_view topic, Subscriber* subscriber, std::uint64_t epoch,
                                    std::uint64_t after, ReplayPage page = {}, bool lossless = false);
  // A parked subscriber whose events could not be fetched: live from the
  // newest event on (its owner tells its client why).
  void release(std::string_view topic, Subscriber* subscriber);
  // Hands `subscriber` one event fetched for it (a parked subscriber's
  // replay), in the topic's wire forms.
  void deliver_fetched(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie, std::uint64_t epoch,
                       std::uint64_t seq, const Message& message);
  // No-op when `subscriber` is not on `topic`.
  void unsubscribe(std::string_view topic, Subscriber* subscriber);

  // Publishes from this loop's thread, building with the loop's scratch.
  // (Any thread may publish through the book itself.)
  [[nodiscard]] PublishResult publish(std::string_view topic, const Message& message,
                                      TopicAllowance* allowance = nullptr) {
    return book_.publish(topic, message, &scratch_, allowance);
  }
  // After publish() said `busy`: this loop's watcher hears room_made() once
  // a loop has delivered more of `topic`. The caller retries its publish
  // after this call, so that a delivery in between is not missed.
  void wait_for_room(std::string_view topic);
  // The pool is short for a request body: kept history gives way
  // (TopicBook::give_way_in_turn). False when none could.
  [[nodiscard]] bool make_pool_room() { return book_.give_way_in_turn(); }
  // See TopicBook::room_refusals().
  [[nodiscard]] std::uint64_t room_refusals() const { return book_.room_refusals(); }

  // The record of a topic this loop follows (null when it follows none):
  // valid while it does.
  [[nodiscard]] TopicRecord* record_of(std::string_view topic) const { return book_.find(topic); }
  // Publisher flow control (RoomRule): a fifo subscriber of `record`, a
  // topic this loop follows, is short of room (its queue passed half its
  // send budget; marked during a delivery, before the loop stores how far
  // it delivered), or has room again (back at a quarter, or gone), which
  // wakes the publishers waiting on the topic.
  static void mark_short_of_room(TopicRecord& record) {
    record.short_of_room.fetch_add(1, std::memory_order_relaxed);
  }
  // The loop stops: publishers waiting for room return (Server::stop()).
  void close_publish_gate() { book_.gate().close(); }
  void mark_room_back(TopicRecord& record) {
    record.short_of_room.fetch_sub(1, std::memory_order_release);
    book_.gate().room_made(record.room_waiters);
  }

  // Delivers the events of `record` this loop has not delivered yet: for
  // each record the book put in the loop's inbox (TopicWatcher), once.
  void drain(TopicRecord* record);
  // Drains every topic this loop follows that has news (after the loop's
  // inbox of topics overflowed and some news may not be in it).
  void drain_pending();

  // Before serving, with a broker: told as the node starts and stops
  // following each topic.
  void set_follower(TopicFollower* follower) { follower_ = follower; }

  [[nodiscard]] std::size_t topic_count() const { return book_.topic_count(); }
  [[nodiscard]] std::size_t subscriber_count(std::string_view topic) const;
  // Subscribers of `topic` on every loop of this node.
  [[nodiscard]] std::size_t node_subscribers(std::string_view topic) const {
    return book_.follow_state(topic).subscribers;
  }
  [[nodiscard]] const std::string& epoch() const { return book_.epoch(); }
  [[nodiscard]] const HubLimits& limits() const { return book_.limits(); }
  std::size_t format_id(std::uint64_t seq, char* out) const { return book_.format_id(seq, out); }
  // The epoch of the Redis Stream that `topic`, which this loop follows,
  // reads now (current_stream()): what a notice written outside an event (a
  // drop notice) names its ids with on a node with a broker. 0 when the
  // loop does not follow the topic or no stream is known yet.
  [[nodiscard]] std::uint64_t stream_epoch(std::string_view topic) const;

 private:
  struct Local;

  ReplayResult join(std::string_view topic, Subscriber* subscriber, std::uint32_t cookie,
                    const std::string_view* last_id, WireForm form, TopicAllowance* allowance, ReplayPage page);
  // Copies into `replay_` the kept events after `after`, whole, as many
  // as `page` holds in a queue that takes `form`; returns true when some
  // were left for a later page.
  bool collect_page(const TopicRecord& record, std::uint64_t after, ReplayPage page, WireForm form);
  [[nodiscard]] Local* local_of(std::string_view topic);
  // Hands `replay_`, the events after `after` up to `upto`, to the
  // subscriber.
  void hand_over_replay(const TopicRecord& record, Subscriber* subscriber, std::uint32_t cookie,
                        std::uint64_t after, std::uint64_t upto);
  void deliver_news(TopicRecord* record);
  void let_go_if_unfollowed(TopicRecord* record);
  void park_if_in_stream(const TopicRecord& record, std::string_view last_id, ReplayResult& result) const;
  bool starts_at_resume_point(TopicRecord& record, std::string_view last_id, std::uint64_t& after) const;
  bool ahead_of_reader(const TopicRecord& record, std::string_view last_id, std::uint64_t& after) const;
  const char* check_replayable(const TopicRecord& record, std::string_view last_id, std::uint64_t& after) const;
  void collect_after(const TopicRecord& record, std::uint64_t after, std::uint64_t& lost_first);
  void let_go_of_batch();
  void deliver_batch(Local& local);
  // batch_'s events as EventFrames (frames_), made on the first request.
  class BatchFrames final : public DrainForms {
   public:
    BatchFrames(Hub& hub, const TopicRecord& record) : hub_(hub), record_(record) {}
    [[nodiscard]] std::span<EventFrames> frames() override;

   private:
    Hub& hub_;
    const TopicRecord& record_;
    bool made_ = false;
  };
  void report_loss(Local& local, std::uint64_t first, std::uint64_t last);
  void rebase(Local& local, const char* reason);
  void answer_awaiting(Local& local, std::uint64_t epoch, std::uint64_t place, const char* reason);
  void deliver_with_holes(Local& local);
  void cut_stalled(Local& local);
  void end_delivering(Local& local);

  TopicBook& book_;
  unsigned loop_;
  TopicFollower* follower_ = nullptr;
  std::unordered_map<const TopicRecord*, std::unique_ptr<Local>> locals_;
  std::vector<TopicRecord*> pending_;  // drain_pending()'s list, reused
  std::vector<KeptEvent> batch_;     // events being delivered, reused
  bool batch_uncounted_ = false;     // batch_'s frames hold no counts (collect_after())
  // A join's or attach's replay, apart from batch_: a subscriber may join
  // from within a delivery (a WebSocket's next request, read when its
  // answer was placed), which must not take the batch from under it.
  std::vector<KeptEvent> replay_;
  std::vector<KeptEvent> held_;      // the rest of a batch split at a hole, reused
  std::vector<EventFrames> frames_;  // batch_'s events in wire forms, reused
  FrameScratch scratch_;             // builds this loop's WebSocket forms
};

}  // namespace sluice::hub
