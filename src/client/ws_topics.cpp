#include "ws_topics.hpp"

#include <algorithm>

namespace sluice::client::detail {

namespace {

constexpr std::string_view kLostAnswer = "the connection closed before the server answered";
constexpr std::string_view kSuperseded = "superseded by a later request before the server answered";
constexpr std::string_view kFollowed =
    "already subscribed to this topic (unsubscribe first to change its policy or since)";

void fill_ack(Event& event, std::uint64_t req, WsRequest::Op op, std::string_view topic, bool ok,
              std::string_view id, std::string_view error) {
  event.kind = EventKind::ack;
  event.topic.assign(topic);
  event.id.assign(id);
  event.type.assign(request_name(op));
  event.data.assign(error);
  event.binary = false;
  event.dropped = 0;
  event.overwritten = 0;
  event.req = req;
  event.ok = ok;
}

}  // namespace

std::string_view request_name(WsRequest::Op op) {
  switch (op) {
    case WsRequest::Op::subscribe: return "subscribe";
    case WsRequest::Op::unsubscribe: return "unsubscribe";
    case WsRequest::Op::publish: return "publish";
  }
  return "request";
}

WsTopics::Topic* WsTopics::find(std::string_view topic) {
  const auto it = std::find_if(topics_.begin(), topics_.end(), [&](const Topic& t) { return t.name == topic; });
  return it == topics_.end() ? nullptr : &*it;
}

void WsTopics::send_subscribe(Topic& topic, std::uint64_t req, JsonSink& sink) {
  json_.clear();
  encode_subscribe(topic.name, topic.resume_id, topic.policy, req, json_);
  pending_.push_back({req, WsRequest::Op::subscribe, topic.name, topic.app_req == req});
  sink.send_json(json_);
}

void WsTopics::resubscribe(JsonSink& sink) {
  std::lock_guard lock(mutex_);
  for (Topic& topic : topics_) send_subscribe(topic, topic.app_req != 0 ? topic.app_req : requests_.next_req(), sink);
}

bool WsTopics::apply(const WsRequest& request, JsonSink& sink, Event& ack) {
  std::lock_guard lock(mutex_);
  Topic* topic = find(request.topic);
  const bool orphan = request.op != WsRequest::Op::publish && topic != nullptr && settle_orphan(*topic, ack);
  if (request.op == WsRequest::Op::subscribe) {
    // The server refuses a second subscribe to a topic; answered here as it
    // would answer, so the topic stays as it is (its refusal would end it).
    if (topic != nullptr && !orphan) {
      fill_ack(ack, request.req, request.op, request.topic, false, {}, kFollowed);
      requests_.answered(1);
      return true;
    }
    if (topic == nullptr) topic = &topics_.emplace_back(Topic{request.topic, {}, request.since, {}, 0});
    topic->policy = request.policy;
    topic->app_req = request.req;
    send_subscribe(*topic, request.req, sink);
    return orphan;
  }
  if (request.op == WsRequest::Op::unsubscribe) forget_topic(request.topic);
  json_.clear();
  encode_request(request, json_);
  pending_.push_back({request.req, request.op, request.topic, true});
  sink.send_json(json_);
  return orphan;
}

// An application's subscribe whose connection dropped waits for the next
// re-subscription to answer it; a newer request for the topic ends that wait.
bool WsTopics::settle_orphan(Topic& topic, Event& ack) {
  if (topic.app_req == 0 || find_pending(topic.app_req) != pending_.size()) return false;
  fill_ack(ack, topic.app_req, WsRequest::Op::subscribe, topic.name, false, {}, kSuperseded);
  topic.app_req = 0;
  requests_.answered(1);
  return true;
}

void WsTopics::forget_topic(std::string_view topic) {
  std::erase_if(topics_, [&](const Topic& t) { return t.name == topic; });
}

std::size_t WsTopics::find_pending(std::uint64_t req) const {
  const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.req == req; });
  return static_cast<std::size_t>(it - pending_.begin());
}

bool WsTopics::on_ack(const proto::wsjson::ServerMessage& ack, Event& event) {
  std::uint64_t req = 0;
  if (!ack.req.to_u64(req)) return false;  // not one of ours
  const std::size_t at = find_pending(req);
  if (at == pending_.size()) return false;  // not ours, or answered already
  const Pending pending = std::move(pending_[at]);
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(at));
  if (pending.op == WsRequest::Op::subscribe) {
    std::lock_guard lock(mutex_);
    Topic* topic = find(pending.topic);
    if (topic != nullptr && topic->app_req == pending.req) topic->app_req = 0;
    if (!ack.ok && topic != nullptr) {
      forget_topic(pending.topic);
    } else if (topic != nullptr && topic->resume_id.empty()) {
      // Nothing received and no `since`: resume from the newest event the
      // topic had when this subscription began, so none after it is missed.
      topic->resume_id.assign(ack.last_id);
    }
  }
  if (pending.from_app) requests_.answered(1);
  if (!pending.from_app && ack.ok) return false;
  fill_ack(event, pending.req, pending.op, pending.topic, ack.ok, ack.id, ack.error);
  return true;
}

void WsTopics::on_event(std::string_view topic, std::string_view id) {
  if (id.empty()) return;
  std::lock_guard lock(mutex_);
  Topic* t = find(topic);
  if (t == nullptr) return;
  t->prior_id.swap(t->resume_id);
  t->resume_id.assign(id);
}

bool WsTopics::follows(std::string_view topic) {
  std::lock_guard lock(mutex_);
  return find(topic) != nullptr;
}

void WsTopics::undo_event(std::string_view topic) {
  std::lock_guard lock(mutex_);
  if (Topic* t = find(topic); t != nullptr) t->resume_id.swap(t->prior_id);
}

void WsTopics::on_disconnect(std::vector<Event>& acks) {
  acks.clear();
  for (const Pending& p : pending_) {
    // A subscribe is answered by its re-subscription on the next connection.
    if (p.op == WsRequest::Op::subscribe || !p.from_app) continue;
    const bool done = p.op == WsRequest::Op::unsubscribe;  // the next connection will not have it
    fill_ack(acks.emplace_back(), p.req, p.op, p.topic, done, {}, done ? std::string_view() : kLostAnswer);
    requests_.answered(1);
  }
  pending_.clear();
}

std::string WsTopics::last_id(std::string_view topic) const {
  std::lock_guard lock(mutex_);
  const auto it = std::find_if(topics_.begin(), topics_.end(), [&](const Topic& t) { return t.name == topic; });
  return it == topics_.end() ? std::string() : it->resume_id;
}

std::size_t WsTopics::topic_count() const {
  std::lock_guard lock(mutex_);
  return topics_.size();
}

}  // namespace sluice::client::detail
