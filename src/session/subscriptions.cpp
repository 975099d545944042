#include "session/subscriptions.hpp"

#include <algorithm>
#include <cstdio>

#include "buf/string_sink.hpp"
#include "hub/event_frames.hpp"
#include "hub/event_id.hpp"
#include "hub/event_runs.hpp"
#include "hub/hub.hpp"
#include "proto/json_string.hpp"
#include "session/services.hpp"

namespace sluice::session {

Subscriptions::Subscriptions(LoopServices& services, conn::Outlet& outlet, Owner& owner, hub::WireForm form,
                             hub::TopicAllowance& allowance)
    : services_(services), outlet_(outlet), owner_(owner), form_(form), allowance_(allowance) {}

Subscriptions::~Subscriptions() {
  if (page_turner_) services_.loop().forget(page_turner_.get());
  leave_all();
}

bool Subscriptions::follows(std::string_view topic) const {
  return !topic.empty() &&
         std::any_of(slots_.begin(), slots_.end(), [&](const TopicSlot& slot) { return slot.name == topic; });
}

Subscriptions::JoinResult Subscriptions::join(std::string_view topic, std::optional<Policy> requested,
                                              std::string_view last_id) {
  // An empty name is no topic: it would also match an empty (left) slot.
  if (topic.empty()) return {JoinStatus::refused, hub::HubStatus::bad_topic};
  if (slot_of(topic) != slots_.end()) return {JoinStatus::ok};
  auto slot = slot_of({});
  if (slot == slots_.end()) {
    if (slots_.size() >= static_cast<std::size_t>(services_.config().max_topics_per_connection)) {
      return {JoinStatus::too_many};
    }
    slots_.emplace_back();
    drops_.emplace_back();
    slot = slots_.end() - 1;
  }
  const auto cookie = static_cast<std::uint32_t>(slot - slots_.begin());
  // Filled in before subscribing: a replay delivers at once.
  *slot = TopicSlot{std::string(topic), requested.value_or(services_.config().policy.for_topic(topic)), nullptr};
  drops_[cookie] = {};
  if (cookie < fetching_.size()) fetching_[cookie] = {};
  forget_owed_reset(cookie);
  if (slot->policy == Policy::latest) {
    const bool sse = form_ == hub::WireForm::sse;
    services_.latest_window().bound(outlet_, sse ? LatestWindow::Probe::sse : LatestWindow::Probe::ws);
  }
  hub::Hub& hub = services_.hub();
  // Counted before the replay, which may cut the stream off (leave_all()
  // counts the slot out).
  services_.metrics().subscribers.inc();
  const hub::ReplayResult result =
      hub.subscribe_after(topic, this, cookie, last_id, form_, &allowance_, replay_page(slot->policy));
  if (result.status != hub::HubStatus::ok) {
    services_.metrics().subscribers.dec();
    slots_[cookie].name.clear();
    return {JoinStatus::refused, result.status};
  }
  if (cookie >= slots_.size()) {
    // The replay took the stream past its send budget and it was cut off,
    // its slots emptied with it (`slot` points at nothing now): the client
    // resumes from the last id it gets, and the stream ends once that is
    // sent.
    return {JoinStatus::ok, hub::HubStatus::ok, result.newest, result.stream_epoch};
  }
  if (slots_[cookie].policy == Policy::fifo) {
    // The loop follows the topic now, so the record stays until it leaves.
    hub::TopicRecord* record = hub.record_of(topic);
    slots_[cookie].fifo_record = record;
    if (record != nullptr) {
      ++fifo_topics_;
      if (short_of_room_) hub::Hub::mark_short_of_room(*record);
    }
  }
  if (result.reset != nullptr) send_reset_notice(cookie, result.reset, last_id);
  if (result.parked) start_fetch(cookie, result);
  // A client parked for a fetch has what came up to its own id: resuming
  // from there loses nothing should it leave before the fetched events
  // reach it. One paged is told the topic's newest, as a replay handed at
  // once tells it.
  const bool fetched = result.parked && !result.paged;
  return {JoinStatus::ok, hub::HubStatus::ok, fetched ? result.after : result.newest, result.stream_epoch,
          result.awaiting};
}

std::vector<TopicSlot>::iterator Subscriptions::slot_of(std::string_view topic) {
  return std::find_if(slots_.begin(), slots_.end(), [topic](const TopicSlot& slot) { return slot.name == topic; });
}

void Subscriptions::placed(std::uint32_t cookie, std::uint64_t epoch, std::uint64_t newest) {
  if (cookie >= slots_.size() || slots_[cookie].name.empty() || stopped_) return;
  owner_.placed(cookie, epoch, newest);
}

std::size_t Subscriptions::format_resume_id(std::uint64_t epoch, std::uint64_t seq, char* out) const {
  if (services_.broker_publishes() == nullptr) return services_.hub().format_id(seq, out);
  return epoch == 0 ? 0 : hub::format_stream_event_id(epoch, seq, out);
}

void Subscriptions::tell_reset(std::string_view topic, const char* reason, std::string_view last_id) {
  const auto slot = slot_of(topic);
  if (topic.empty() || slot == slots_.end()) return;
  send_reset_notice(static_cast<std::uint32_t>(slot - slots_.begin()), reason, last_id);
}

bool Subscriptions::leave(std::string_view topic) {
  const auto slot = slot_of(topic);
  if (topic.empty() || slot == slots_.end()) return false;
  const auto cookie = static_cast<std::uint32_t>(slot - slots_.begin());
  cancel_fetch(cookie);
  forget_room(cookie);
  services_.hub().unsubscribe(topic, this);
  services_.metrics().subscribers.dec();
  // What it could not have matters no more to a client that left.
  forget_owed_reset(cookie);
  let_go_of_pending(cookie);
  slot->name.clear();
  return true;
}

// What waits of the topic left is dropped with it: the unsubscribe's
// answer, which goes ahead of waiting events, is then the last the client
// hears of the topic, so resuming from the last id it got repeats nothing
// and misses nothing; and the slot, which another topic may take next,
// holds nothing of it. Its losses are told now, while the notice can still
// name it, or not at all once the slot is another's.
void Subscriptions::let_go_of_pending(std::uint32_t cookie) {
  conn::OutQueue& queue = outlet_.queue();
  for (std::size_t i = queue.pending_data(); i-- > 0;) {
    const delivery::FrameTag tag = delivery::FrameTag::of(queue.pending_label(i));
    if (tag.kind != delivery::FrameKind::application && tag.topic == cookie) (void)queue.remove_pending(i);
  }
  if (drops_[cookie].empty()) return;
  if (!outlet_.data_held() && queue_drop_notices()) {
    drops_pending_ = false;
    return;
  }
  drops_[cookie] = {};
}

void Subscriptions::leave_all() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const std::string& topic = slots_[i].name;
    if (topic.empty()) continue;
    cancel_fetch(static_cast<std::uint32_t>(i));
    forget_room(static_cast<std::uint32_t>(i));
    services_.hub().unsubscribe(topic, this);
    services_.metrics().subscribers.dec();
  }
  slots_.clear();
  drops_.clear();
  fetching_.clear();
  owed_resets_.clear();
  resets_owed_ = 0;
  short_of_room_ = false;
}

void Subscriptions::stop() {
  stopped_ = true;
  if (!short_of_room_) return;
  short_of_room_ = false;
  for (const TopicSlot& slot : slots_) {
    if (slot.fifo_record != nullptr) services_.hub().mark_room_back(*slot.fifo_record);
  }
}

void Subscriptions::forget_room(std::uint32_t cookie) {
  hub::TopicRecord* record = slots_[cookie].fifo_record;
  if (record == nullptr) return;
  slots_[cookie].fifo_record = nullptr;
  --fifo_topics_;
  if (short_of_room_) services_.hub().mark_room_back(*record);
}

void Subscriptions::weigh_room_short() {
  const conn::OutQueue& queue = outlet_.queue();
  const conn::OutQueueLimits& budget = queue.limits();
  if (queue.data_frames() * 2 <= budget.max_frames && queue.budgeted_bytes() * 2 <= budget.max_bytes) return;
  short_of_room_ = true;
  for (const TopicSlot& slot : slots_) {
    if (slot.fifo_record != nullptr) hub::Hub::mark_short_of_room(*slot.fifo_record);
  }
}

void Subscriptions::weigh_room_back() {
  const conn::OutQueue& queue = outlet_.queue();
  const conn::OutQueueLimits& budget = queue.limits();
  if (queue.data_frames() * 4 > budget.max_frames || queue.budgeted_bytes() * 4 > budget.max_bytes) return;
  short_of_room_ = false;
  for (const TopicSlot& slot : slots_) {
    if (slot.fifo_record != nullptr) services_.hub().mark_room_back(*slot.fifo_record);
  }
}

// Cut off as a fifo subscriber past its budget is: it resumes by id and
// misses nothing.
void Subscriptions::stalled(std::uint32_t cookie) {
  if (stopped_ || !short_of_room_ || cookie >= slots_.size() || slots_[cookie].fifo_record == nullptr) return;
  ++services_.counters().slow_disconnects;
  services_.metrics().slow_consumer_cutoffs[static_cast<std::size_t>(Policy::fifo)].add();
  owner_.cut_off();
}

void Subscriptions::deliver(const hub::Delivery& delivery) {
  if (delivery.cookie >= slots_.size()) return;  // cut off during a replay
  if (stopped_) return;
  if (resets_owed_ != 0 && !pay_owed_reset(delivery.cookie)) return held_behind_reset(delivery.cookie, delivery.id);
  const Policy policy = slots_[delivery.cookie].policy;
  const buf::FrameRef& frame = delivery.frames.form(form_);
  if (!frame) {
    // The pool had no room for this form of the event: a loss like any other.
    drops_[delivery.cookie].add(delivery.id);
    drops_pending_ = true;
    return outlet_.want_flush();
  }
  const delivery::FrameTag tag = delivery::FrameTag::event(delivery.cookie, delivery.id, delivery.key);
  switch (delivery::enqueue_with_policy(outlet_.queue(), policy, frame, tag, drops_.data())) {
    case delivery::Verdict::queued:
      services_.metrics().delivered_to(transport()).add();
      weigh_room();
      [[fallthrough]];
    case delivery::Verdict::dropped:
      // Only the lossy policies record drops, in any of this stream's topics.
      drops_pending_ = drops_pending_ || policy != Policy::fifo;
      return outlet_.want_flush();
    case delivery::Verdict::cut_off:
      return cut_off_past_budget(policy);
  }
}

void Subscriptions::cut_off_past_budget(Policy policy) {
  ++services_.counters().slow_disconnects;
  services_.metrics().slow_consumer_cutoffs[static_cast<std::size_t>(policy)].add();
  if (policy == Policy::disconnect) return outlet_.close_now(conn::CloseReason::slow_consumer);
  owner_.cut_off();
}

bool Subscriptions::deliver_run(const hub::RunDelivery& run) {
  if (run.cookie >= slots_.size() || stopped_ || slots_[run.cookie].policy == Policy::latest) return false;
  if (resets_owed_ != 0 && !pay_owed_reset(run.cookie)) return false;  // one by one, each held
  const buf::FrameRef& frame = run.runs.form(form_);
  if (!frame) return false;  // no run (big events, or no blocks for one): one by one
  const delivery::FrameTag tag = delivery::FrameTag::run(run.cookie, run.first_id, run.last_id);
  if (!delivery::enqueue_run(outlet_.queue(), slots_[run.cookie].policy, frame, tag)) return false;
  services_.metrics().delivered_to(transport()).add(run.last_id - run.first_id + 1);
  weigh_room();
  outlet_.want_flush();
  return true;
}

void Subscriptions::lost(std::uint32_t cookie, std::uint64_t first, std::uint64_t last) {
  if (cookie >= drops_.size()) return;
  drops_[cookie].add_range(first, last);
  drops_pending_ = true;
  outlet_.want_flush();
}

void Subscriptions::before_flush() {
  if (stopped_) return;  // nothing may follow a WebSocket close frame
  for (std::uint32_t i = 0; resets_owed_ != 0 && i < owed_resets_.size(); ++i) (void)pay_owed_reset(i);
  // While the reader's window holds data back, what `latest` replaced is
  // told with the frame that replaced it: a notice per flush would fill
  // the very buffers the window keeps shallow.
  if (drops_pending_ && !outlet_.data_held()) drops_pending_ = !queue_drop_notices();
}

void Subscriptions::on_drained() {
  // A notice that waited for room goes now.
  if (drops_pending_ || (resets_owed_ != 0 && reset_waits_for_room_)) outlet_.want_flush();
  if (pages_waiting_) want_pages();
}

// One notice per topic that lost events since the last one, all in one
// control frame. Returns false when it must wait (the records are kept):
// while a control frame is still waiting, losses keep adding up into one
// notice instead of one notice per lost event.
bool Subscriptions::queue_drop_notices() {
  if (outlet_.queue().control_frames() > 0) return false;
  buf::FrameBuilder builder(services_.pool(), buf::Lane::control);
  std::uint64_t dropped = 0;
  for (std::size_t i = 0; i < drops_.size(); ++i) {
    // A slot that owes its reset tells its losses with it (pay_owed_reset):
    // the client learns why the ids start over before what it lost since.
    if (!drops_[i].empty() && !owes_reset(i)) dropped += append_drop_notice(builder, i);
  }
  if (dropped == 0) return true;
  buf::FrameRef notice = builder.finish();
  if (!notice || outlet_.send_control(std::move(notice)) != conn::EnqueueStatus::ok) return false;
  for (std::size_t i = 0; i < drops_.size(); ++i) {
    if (drops_[i].empty() || owes_reset(i)) continue;
    count_told(i, drops_[i]);
    drops_[i] = {};
  }
  return true;
}

std::uint64_t Subscriptions::append_drop_notice(buf::FrameBuilder& builder, std::size_t i) {
  const delivery::DropRecord& d = drops_[i];
  // The ids a resuming client would give: of the topic's stream on a node
  // with a broker (none while no stream is known), of this run's epoch
  // otherwise.
  const bool stream_ids = services_.broker_publishes() != nullptr;
  const std::uint64_t epoch = stream_ids ? services_.hub().stream_epoch(slots_[i].name) : 0;
  char first[hub::kMaxIdText];
  char last[hub::kMaxIdText];
  const std::string_view policy = delivery::policy_name(slots_[i].policy);
  char fields[1400];
  const int n = std::snprintf(
      fields, sizeof fields,
      "\"topic\":\"%s\",\"dropped\":%llu,\"first_id\":\"%.*s\",\"last_id\":\"%.*s\",\"policy\":\"%.*s\"",
      slots_[i].name.c_str(), static_cast<unsigned long long>(d.count),
      static_cast<int>(format_resume_id(epoch, d.first_id, first)), first,
      static_cast<int>(format_resume_id(epoch, d.last_id, last)), last, static_cast<int>(policy.size()),
      policy.data());
  owner_.append_notice(builder, "dropped", std::string_view(fields, static_cast<std::size_t>(n)));
  return d.count;
}

void Subscriptions::count_told(std::size_t i, const delivery::DropRecord& told) {
  metrics::LoopMetrics& m = services_.metrics();
  services_.counters().events_dropped += told.count;
  if (slots_[i].policy == Policy::latest) {
    m.events_conflated.add(told.count);
  } else {
    m.events_dropped[static_cast<std::size_t>(slots_[i].policy)].add(told.count);
  }
}

// The client is told, before any live event, that it cannot have what it
// missed: the notice goes in the data lane, in order with the events.
void Subscriptions::reset(std::uint32_t cookie, const char* reason) {
  if (cookie >= slots_.size() || slots_[cookie].name.empty() || stopped_) return;
  send_reset_notice(cookie, reason, {});
  // No event may follow soon (a stream found gone): the notice goes now.
  outlet_.want_flush();
}

void Subscriptions::send_reset_notice(std::uint32_t cookie, const char* reason, std::string_view last_id) {
  if (cookie >= owed_resets_.size()) owed_resets_.resize(cookie + 1);
  OwedReset& owed = owed_resets_[cookie];
  if (owed.reason == nullptr) ++resets_owed_;
  owed = {reason, std::string(last_id)};
  (void)pay_owed_reset(cookie);
  outlet_.want_flush();
}

// A lossy topic's notice takes the place of the oldest events that may
// give way; behind events that must wait it waits too, and the topic's
// events wait behind it (held_behind_reset), so the client never takes one
// of them for what followed its own id.
bool Subscriptions::pay_owed_reset(std::uint32_t cookie) {
  if (cookie >= owed_resets_.size() || owed_resets_[cookie].reason == nullptr) return true;
  if (stopped_ || cookie >= slots_.size()) return false;
  const OwedReset& owed = owed_resets_[cookie];
  std::string fields;
  buf::StringSink out(fields);
  out.append("\"topic\":");
  (void)proto::json::write_string(out, slots_[cookie].name);  // a StringSink never refuses
  out.append(",\"reason\":\"");
  out.append(owed.reason);
  out.append("\",\"last_id\":");
  (void)proto::json::write_string(out, owed.last_id);  // the client's, so not trusted to be UTF-8
  buf::FrameBuilder builder(services_.pool(), buf::Lane::control);
  owner_.append_notice(builder, "reset", fields);
  // What the topic lost while the notice waited goes right behind it.
  // Making room may record more: those are told after.
  const delivery::DropRecord told = drops_[cookie];
  if (!told.empty()) (void)append_drop_notice(builder, cookie);
  drops_[cookie] = {};
  const buf::FrameRef notice = builder.finish();
  const delivery::FrameTag tag = delivery::FrameTag::notice(cookie);
  // No flush is asked for here (this may run within one, which would then
  // spin): a flush that writes makes room and comes back to before_flush(),
  // and one that drains asks again (on_drained).
  reset_waits_for_room_ = static_cast<bool>(notice);
  if (!notice || !delivery::enqueue_notice(outlet_.queue(), notice, tag, drops_.data())) {
    drops_[cookie].merge(told);
    return false;
  }
  if (!told.empty()) count_told(cookie, told);
  forget_owed_reset(cookie);
  drops_pending_ = true;  // the notice may have taken the place of events
  return true;
}

void Subscriptions::forget_owed_reset(std::uint32_t cookie) {
  if (cookie >= owed_resets_.size() || owed_resets_[cookie].reason == nullptr) return;
  owed_resets_[cookie] = {};
  --resets_owed_;
}

void Subscriptions::held_behind_reset(std::uint32_t cookie, std::uint64_t id) {
  const Policy policy = slots_[cookie].policy;
  if (policy == Policy::fifo || policy == Policy::disconnect) {
    // The queue is full of what may not give way: past the budget. Or the
    // pool, its control reserve too, had no block for the notice: the
    // server's shortage, not the client's.
    if (reset_waits_for_room_) return cut_off_past_budget(policy);
    return outlet_.close_now(conn::CloseReason::memory);
  }
  drops_[cookie].add(id);
  drops_pending_ = true;
  outlet_.want_flush();
}

}  // namespace sluice::session
