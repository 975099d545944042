// A session's topics: joining (with replay), leaving, handing each delivered
// event to the slow-consumer policy, and telling the client what it lost.
#include <algorithm>
#include <cstdio>

#include "hub/event_id.hpp"
#include "buf/string_sink.hpp"
#include "proto/json_text.hpp"
#include "server/session.hpp"
#include "server/worker.hpp"
#include "ws_state.hpp"

namespace sluice::server {

Session::JoinStatus Session::join(std::string_view topic, std::optional<conn::Policy> requested,
                                  std::string_view last_id) {
  if (std::find(topics_.begin(), topics_.end(), topic) != topics_.end()) return JoinStatus::ok;
  auto slot = std::find(topics_.begin(), topics_.end(), std::string_view());
  if (slot == topics_.end()) {
    if (topics_.size() >= static_cast<std::size_t>(worker_.config().max_topics_per_connection)) {
      return JoinStatus::too_many;
    }
    topics_.emplace_back();
    policies_.emplace_back();
    drops_.emplace_back();
    slot = topics_.end() - 1;
  }
  const auto cookie = static_cast<std::uint32_t>(slot - topics_.begin());
  // Filled in before subscribing: a replay delivers at once.
  *slot = std::string(topic);
  policies_[cookie] = requested.value_or(worker_.config().policy.for_topic(topic));
  drops_[cookie] = {};
  const int form = wire_form_index();
  const hub::ReplayResult result = last_id.empty()
                                       ? hub::ReplayResult{worker_.hub().subscribe(topic, this, cookie, form)}
                                       : worker_.hub().subscribe_after(topic, this, cookie, last_id, form);
  if (result.status != hub::HubStatus::ok) {
    topics_[cookie].clear();
    const bool full = result.status == hub::HubStatus::too_many_topics ||
                      result.status == hub::HubStatus::too_many_subscribers;
    return full ? JoinStatus::unavailable : JoinStatus::bad_topic;
  }
  if (result.reset != nullptr) send_reset_notice(cookie, result.reset, last_id);
  return JoinStatus::ok;
}

bool Session::leave(std::string_view topic) {
  const auto slot = std::find(topics_.begin(), topics_.end(), topic);
  if (topic.empty() || slot == topics_.end()) return false;
  worker_.hub().unsubscribe(topic, this);
  slot->clear();
  return true;
}

void Session::leave_all() {
  for (const std::string& topic : topics_) {
    if (!topic.empty()) worker_.hub().unsubscribe(topic, this);
  }
  topics_.clear();
  policies_.clear();
  drops_.clear();
}

int Session::wire_form_index() const {
  const int deflated = ws_ && ws_->deflate ? 1 : 0;
  switch (state_) {
    case State::ws_topic:
      return hub::kWsMessage + deflated;
    case State::ws_json:
      return hub::kWsJson + deflated;
    default:
      return hub::kSseOnly;
  }
}

const buf::FrameRef& Session::wire_form(hub::EventFrames& frames) const {
  const int form = wire_form_index();
  return form == hub::kSseOnly ? frames.sse() : frames.ws_form(form);
}

void Session::deliver(const hub::Delivery& delivery) {
  if (delivery.cookie >= policies_.size()) return;  // cut off during a replay
  if (ws_ && ws_->close_sent) return;               // nothing may follow a close frame
  const conn::Policy policy = policies_[delivery.cookie];
  const buf::FrameRef& frame = wire_form(delivery.frames);
  if (!frame) {
    // The pool had no room for this form of the event: a loss like any other.
    drops_[delivery.cookie].add(delivery.id);
    drops_pending_ = true;
    return want_flush();
  }
  const conn::FrameTag tag{delivery.id, delivery.cookie, delivery.key};
  switch (conn::enqueue_with_policy(mutable_out_queue(), policy, frame, tag, drops_.data())) {
    case conn::Verdict::queued:
    case conn::Verdict::dropped:
      // Only the lossy policies record drops, in any of this stream's topics.
      drops_pending_ = drops_pending_ || policy != conn::Policy::fifo;
      return want_flush();
    case conn::Verdict::cut_off:
      ++worker_.mutable_stats().slow_disconnects;
      if (policy == conn::Policy::disconnect) return close_now(conn::CloseReason::slow_consumer);
      return cut_off();
  }
}

void Session::lost(std::uint32_t cookie, std::uint64_t first, std::uint64_t last) {
  if (cookie >= drops_.size()) return;
  drops_[cookie].add_range(first, last);
  drops_pending_ = true;
  want_flush();
}

// A frame a ConnectionRef sent: the application's own message, under the
// same budget as events; past it the connection is cut off as slow.
void Session::send_posted(buf::FrameRef frame) {
  if (ws_ && ws_->close_sent) return;
  if (send_data(std::move(frame)) == conn::EnqueueStatus::ok) return;
  ++worker_.mutable_stats().slow_disconnects;
  cut_off();
}

// fifo past its budget: nothing is lost yet, so the subscriber gets what is
// queued and then the end of the stream, and resumes from its last id. An
// SSE client is also given a longer `retry:` to spread the reconnects.
void Session::cut_off() {
  leave_all();
  if (websocket()) {
    ws_close(proto::ws::CloseCode::policy_violation, "slow consumer");
  } else {
    char text[96];
    const int n = std::snprintf(text, sizeof text, ": slow consumer, resume from the last id\nretry: %lld\n\n",
                                static_cast<long long>(worker_.config().policy.slow_retry_ms));
    buf::FrameRef hint = buf::make_frame(worker_.pool(), buf::Lane::control, std::string_view(text, n));
    if (hint) (void)send_control(std::move(hint));
  }
  close_after_flush(conn::CloseReason::slow_consumer);
}

void Session::before_flush() {
  if (ws_ && ws_->close_sent) return;  // nothing may follow a close frame
  if (drops_pending_) drops_pending_ = !queue_drop_notices();
}

// One notice per topic that lost events since the last one, all in one
// control frame. Returns false when it must wait (the records are kept):
// while a control frame is still waiting, losses keep adding up into one
// notice instead of one notice per lost event.
bool Session::queue_drop_notices() {
  if (out_queue().control_frames() > 0) return false;
  buf::FrameBuilder builder(worker_.pool(), buf::Lane::control);
  std::uint64_t dropped = 0;
  for (std::size_t i = 0; i < drops_.size(); ++i) {
    const conn::DropRecord& d = drops_[i];
    if (d.empty()) continue;
    char first[hub::kMaxIdText];
    char last[hub::kMaxIdText];
    const auto& hub = worker_.hub();
    char fields[1400];
    const int n = std::snprintf(
        fields, sizeof fields, "\"topic\":\"%s\",\"dropped\":%llu,\"first_id\":\"%.*s\",\"last_id\":\"%.*s\",\"policy\":\"%.*s\"",
        topics_[i].c_str(), static_cast<unsigned long long>(d.count),
        static_cast<int>(hub.format_id(d.first_id, first)), first, static_cast<int>(hub.format_id(d.last_id, last)),
        last, static_cast<int>(conn::policy_name(policies_[i]).size()), conn::policy_name(policies_[i]).data());
    append_notice(builder, "dropped", std::string_view(fields, static_cast<std::size_t>(n)));
    dropped += d.count;
  }
  if (dropped == 0) return true;
  buf::FrameRef notice = builder.finish();
  if (!notice || send_control(std::move(notice)) != conn::EnqueueStatus::ok) return false;
  worker_.mutable_stats().events_dropped += dropped;
  std::fill(drops_.begin(), drops_.end(), conn::DropRecord{});
  return true;
}

// The client is told, before any live event, that it cannot have what it
// missed: the notice goes in the data lane, in order with the events.
void Session::send_reset_notice(std::uint32_t cookie, const char* reason, std::string_view last_id) {
  std::string fields;
  buf::StringSink out(fields);
  out.append("\"topic\":");
  proto::append_json_string(out, topics_[cookie]);
  out.append(",\"reason\":\"");
  out.append(reason);
  out.append("\",\"last_id\":");
  proto::append_json_string(out, last_id);
  buf::FrameBuilder builder(worker_.pool(), buf::Lane::control);
  append_notice(builder, "reset", fields);
  buf::FrameRef notice = builder.finish();
  if (notice) (void)mutable_out_queue().push_data(std::move(notice), conn::FrameTag{0, cookie, 0});
}

// A notice in the stream's own format: an SSE event named sluice-KIND, a
// /ws message {"op":"KIND",...}, or on /ws/{topic} a text message
// {"sluice":"KIND",...}.
bool Session::append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) {
  if (!websocket()) {
    out.append("event: sluice-");
    out.append(kind);
    out.append("\ndata: {");
    out.append(json_fields);
    return out.append("}\n\n");
  }
  notice_scratch_.assign(state_ == State::ws_json ? "{\"op\":\"" : "{\"sluice\":\"");
  notice_scratch_.append(kind).append("\",").append(json_fields).append("}");
  return proto::ws::encode_frame(proto::ws::Opcode::text, true, false, notice_scratch_, out);
}

}  // namespace sluice::server
