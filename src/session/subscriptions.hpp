// Owns: Subscriptions, the topics one stream follows: joining (with
// replay), leaving, handing each delivered event to the subscriber's
// slow-consumer policy, and telling the client what it lost, in the
// stream's own notice format.
//
// With a broker, a client whose id is older than this node keeps has what
// it missed fetched from Redis, page by page, while the hub holds its
// subscription parked; then it joins the live stream at the seam
// (subscription_replay.cpp).
//
// Publisher flow control: while the stream's queue holds more than half its
// send budget (frames or bytes) it is short of room, counted on the record
// of each topic it follows fifo, until a flush has it back at a quarter or
// it leaves; a publisher that waits for room (Server::publish_waiting)
// publishes only while no subscriber of the topic is short of room.
//
// A slot per topic: its index is the cookie the hub hands back with each
// event and the topic index in the event's queue tag. A slot left (over
// /ws) is emptied and reused, so cookies stay stable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/loop_metrics.hpp"
#include "buf/frame.hpp"
#include "conn/outlet.hpp"
#include "delivery/policy.hpp"
#include "hub/hub_types.hpp"
#include "hub/wire_form.hpp"
#include "io/loop.hpp"
#include "session/broker_replays.hpp"
#include "session/topic_slot.hpp"

namespace sluice::hub {
struct TopicRecord;
}  // namespace sluice::hub

namespace sluice::session {

class LoopServices;

// What a client is told whose answer waited for its topic's place past
// broker.placement_timeout_ms (Redis unreachable): it may try again.
inline constexpr std::string_view kNotPlacedInTime =
    "broker unavailable: the topic was not found in Redis within broker.placement_timeout_ms, retry later";

class Subscriptions final : public hub::Subscriber, private ReplayWaiter {
 public:
  // What differs from stream to stream.
  class Owner {
   public:
    // Appends a notice (`kind`, and the fields of a JSON object without
    // its braces) in the stream's format; false when the builder refused.
    virtual bool append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) = 0;
    // fifo past the send budget: nothing is lost yet, so the stream ends
    // in its own way and the client resumes from its last id.
    virtual void cut_off() = 0;
    // A topic joined `awaiting` (JoinResult) is placed: the client's
    // answer, held until now, may go, naming `newest` of stream `epoch`
    // (format_stream_id) as where it stands.
    virtual void placed(std::uint32_t /*cookie*/, std::uint64_t /*epoch*/, std::uint64_t /*newest*/) {}

   protected:
    ~Owner() = default;
  };

  enum class JoinStatus : std::uint8_t {
    ok,
    too_many,  // this stream follows topics.max_per_connection topics already
    refused,   // by the hub: `refusal` says why
  };
  struct JoinResult {
    JoinStatus status;
    hub::HubStatus refusal = hub::HubStatus::ok;
    std::uint64_t newest = 0;  // ok: the topic's newest id when it was joined
    // With a broker: the topic's stream (0: none found yet), and whether
    // the client's answer must wait for Owner::placed() (a subscriber with
    // no id of a topic this node has not placed yet: it is owed what is
    // published after the place, so the answer that tells it it follows
    // the topic goes only then).
    std::uint64_t stream_epoch = 0;
    bool awaiting = false;
  };

  // `form` is the wire form this stream takes; the topics it makes are
  // charged to `allowance` (the client's).
  Subscriptions(LoopServices& services, conn::Outlet& outlet, Owner& owner, hub::WireForm form,
                hub::TopicAllowance& allowance);
  ~Subscriptions();
  Subscriptions(const Subscriptions&) = delete;
  Subscriptions& operator=(const Subscriptions&) = delete;

  // Joins `topic` under `requested` (or the configured policy), replaying
  // what came after `last_id` when one is given; a client whose id cannot
  // be resumed from is told so (a reset notice) before any live event.
  JoinResult join(std::string_view topic, std::optional<Policy> requested, std::string_view last_id);
  // Tells the client, before any live event of joined `topic`, that it
  // cannot have what it missed after `last_id` (a reset notice, `reason`).
  void tell_reset(std::string_view topic, const char* reason, std::string_view last_id);
  // False when not joined.
  bool leave(std::string_view topic);
  // Whether `topic` (not empty) is joined.
  [[nodiscard]] bool follows(std::string_view topic) const;
  // The topics followed, by slot; a slot left has an empty name. Valid
  // until the next join.
  [[nodiscard]] std::span<const TopicSlot> topics() const { return slots_; }
  void leave_all();
  // Nothing more may be queued (a WebSocket close went out): deliveries
  // and notices stop, and the stream holds no waiting publisher back.
  void stop();

  // The stream's flush hooks: notices that waited go out with the flush;
  // a flush that wrote frames may give a waiting publisher room.
  void before_flush();
  void on_drained();
  void on_flushed() {
    if (short_of_room_) weigh_room_back();
    if (pages_waiting_) want_pages();
  }

  void deliver(const hub::Delivery& delivery) override;
  bool deliver_run(const hub::RunDelivery& run) override;
  void lost(std::uint32_t cookie, std::uint64_t first, std::uint64_t last) override;
  void reset(std::uint32_t cookie, const char* reason) override;
  void placed(std::uint32_t cookie, std::uint64_t epoch, std::uint64_t newest) override;
  void stalled(std::uint32_t cookie) override;
  // Writes the id a client resumes from after event `seq` of the topic into
  // `out` (hub::kMaxIdText bytes): with a broker the stream's id, the same
  // on every node, and nothing when there is no stream yet (epoch 0);
  // without, this run's.
  [[nodiscard]] std::size_t format_resume_id(std::uint64_t epoch, std::uint64_t seq, char* out) const;

 private:
  // A parked slot's replay from the broker: the events after `after`, up
  // to `upto`, of stream `epoch`. Kept apart from the slots, and made only
  // for a slot that fetches: without a broker nothing ever does.
  // Why a slot's client cannot have what it missed, and the id it gave.
  struct OwedReset {
    const char* reason = nullptr;  // none owed
    std::string last_id;
  };
  // Or a replay longer than the queue had room for, handed over a page at
  // a time from the history as the queue drains (`paging`).
  struct Fetching {
    bool active = false;
    bool paging = false;
    std::uint32_t ticket = 0;
    std::uint64_t epoch = 0;
    std::uint64_t after = 0;
    std::uint64_t upto = 0;
  };

  void start_fetch(std::uint32_t cookie, const hub::ReplayResult& parked);
  void page_when_drained(std::uint32_t cookie);
  // What a replay may hand this stream at once: a third of its send
  // budget, less what its queue holds (one event at least, while it has
  // room). `latest` takes it whole: it keeps only the newest of each key
  // anyway.
  [[nodiscard]] hub::ReplayPage replay_page(Policy policy) const;
  // A flush drained the queue: the next pages are handed over at the end
  // of the tick, never inside the flush (a page may end the stream).
  void want_pages();
  // The queue has drained to a quarter of its budget: each paging slot
  // takes its next page.
  void turn_pages();
  // Asks the hub for slot `cookie`'s next page after what it was handed
  // (the history's or, with a broker, a fetched page's last event), or to
  // join it to the live stream when the rest fits.
  void next_page(std::uint32_t cookie);
  void fetch_next(std::uint32_t cookie);
  void replayed(std::uint32_t ticket, const broker::ReplayAnswer& answer) override;
  void hand_over_fetched(std::uint32_t cookie, const broker::ReplayAnswer& answer);
  void give_up_fetch(std::uint32_t cookie, const char* reason);
  void cancel_fetch(std::uint32_t cookie);
  bool queue_drop_notices();
  // Appends slot `i`'s dropped notice; returns the events it tells of.
  std::uint64_t append_drop_notice(buf::FrameBuilder& builder, std::size_t i);
  // Slot `i`'s losses `told` went out: counted.
  void count_told(std::size_t i, const delivery::DropRecord& told);
  // A reset notice is owed to the client from now until it is queued: it
  // goes before the topic's next event, however full the queue is.
  void send_reset_notice(std::uint32_t cookie, const char* reason, std::string_view last_id);
  // Queues slot `cookie`'s owed notice, if it owes one, making room as the
  // lossy policies do; false while it is still owed.
  bool pay_owed_reset(std::uint32_t cookie);
  void forget_owed_reset(std::uint32_t cookie);
  [[nodiscard]] bool owes_reset(std::size_t cookie) const {
    return resets_owed_ != 0 && cookie < owed_resets_.size() && owed_resets_[cookie].reason != nullptr;
  }
  // An event of slot `cookie` that may not go because its reset notice
  // could not: a loss, or past the budget for a topic that keeps its events.
  void held_behind_reset(std::uint32_t cookie, std::uint64_t id);
  // fifo or disconnect past the send budget.
  void cut_off_past_budget(Policy policy);
  // After queueing: the stream may be short of room now.
  void weigh_room() {
    if (!short_of_room_ && fifo_topics_ != 0) weigh_room_short();
  }
  void weigh_room_short();
  void weigh_room_back();
  // Slot `cookie` stops counting (it leaves, or is taken again).
  void forget_room(std::uint32_t cookie);
  void let_go_of_pending(std::uint32_t cookie);
  // The slot of `topic`, or slots_.end().
  [[nodiscard]] std::vector<TopicSlot>::iterator slot_of(std::string_view topic);

  LoopServices& services_;
  conn::Outlet& outlet_;
  Owner& owner_;
  // Where this stream's deliveries are counted.
  [[nodiscard]] metrics::Transport transport() const {
    return form_ == hub::WireForm::sse ? metrics::Transport::sse : metrics::Transport::ws;
  }

  const hub::WireForm form_;
  hub::TopicAllowance& allowance_;
  std::vector<TopicSlot> slots_;
  // By slot; an array of its own, as delivery::enqueue_with_policy records
  // drops into one.
  std::vector<delivery::DropRecord> drops_;
  std::vector<Fetching> fetching_;  // by slot, up to the last that fetched
  std::vector<OwedReset> owed_resets_;  // by slot, up to the last that owed one
  std::size_t resets_owed_ = 0;
  // The last notice owed could not be queued for room (not for want of a
  // pool block): a flush that drains the queue lets it go.
  bool reset_waits_for_room_ = true;
  std::size_t fifo_topics_ = 0;
  bool short_of_room_ = false;
  bool drops_pending_ = false;
  // Made for the first replay handed in pages: the loop's deferred work
  // that turns them.
  struct PageTurner final : io::Deferred {
    explicit PageTurner(Subscriptions& s) : owner(s) {}
    void run_deferred() override { owner.turn_pages(); }
    Subscriptions& owner;
  };
  std::unique_ptr<PageTurner> page_turner_;
  std::uint32_t page_cursor_ = 0;  // the slot whose page a turn offers first
  bool pages_waiting_ = false;     // some slot is paging (Fetching::paging)
  bool stopped_ = false;
};

}  // namespace sluice::session
