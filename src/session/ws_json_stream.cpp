#include "session/publish_metrics.hpp"
#include "session/ws_json_stream.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "buf/fixed_sink.hpp"
#include "buf/string_sink.hpp"
#include "hub/event_id.hpp"
#include "hub/hub.hpp"
#include "proto/json_string.hpp"
#include "proto/topic_name.hpp"
#include "proto/ws_json_writer.hpp"
#include "session/peer.hpp"
#include "session/services.hpp"
#include "session/shared_routes.hpp"

namespace sluice::session {

namespace {

namespace wsjson = proto::wsjson;

// Decoded strings of one request, on the stack (see on_message()).
constexpr std::size_t kStackScratch = 4096;

// Room for the longest ack: the members, a Req, two ids and a one-line error.
constexpr std::size_t kMaxAck = 1024;

// Control frames kept free of acks, for the pongs, pings and drop notices
// that share the lane.
constexpr std::size_t kControlHeadroom = 4;

// ws.json_max_replies, but a few frames short of the control lane's
// length: the acks share it with pongs, pings and drop notices.
std::size_t reply_bound(const server::Config& config, std::size_t control_frames) {
  const std::size_t lane = control_frames - std::min(kControlHeadroom, control_frames / 2);
  return std::min(static_cast<std::size_t>(config.ws.json_max_replies), lane);
}

wsjson::Limits limits_from(const server::Config& config) {
  wsjson::Limits limits;
  limits.max_message_bytes = static_cast<std::size_t>(config.ws.max_message);
  limits.max_depth = static_cast<std::uint32_t>(config.ws.json_max_depth);
  limits.max_string_bytes = static_cast<std::size_t>(config.ws.json_max_string);
  limits.max_number_chars = static_cast<std::size_t>(config.ws.json_max_number);
  limits.max_members = static_cast<std::size_t>(config.ws.json_max_members);
  return limits;
}

// A request over one of the /ws limits is told which key bounds it; the
// reader's own words say what else went wrong.
std::string_view refusal_reason(const wsjson::ReadResult& read) {
  switch (read.error) {
    case wsjson::Error::too_large:
      return "a message longer than allowed (ws.max_message)";
    case wsjson::Error::too_deep:
      return "values nested deeper than allowed (ws.json_max_depth)";
    case wsjson::Error::string_too_long:
      return "a string longer than allowed (ws.json_max_string)";
    case wsjson::Error::number_too_long:
      return "a number longer than allowed (ws.json_max_number)";
    case wsjson::Error::too_many_members:
      return "more members in an object or elements in an array than allowed (ws.json_max_members)";
    default:
      return read.reason;
  }
}

}  // namespace

WsJsonStream::WsJsonStream(const WsSetup& setup)
    : WsStream(setup),
      subscriptions_(setup.services, setup.outlet, *this, hub::ws_envelope_form(deflate()),
                     setup.peer.topic_allowance()),
      limits_(limits_from(setup.services.config())),
      max_replies_(reply_bound(setup.services.config(), setup.outlet.queue().limits().max_control_frames)) {}

WsJsonStream::~WsJsonStream() {
  if (awaiting_publish_) services().broker_publishes()->cancel(publish_ticket_);
}

void WsJsonStream::on_drained() {
  subscriptions_.on_drained();
  if (!paused_) return;
  paused_ = false;
  outlet().resume_input();
}

void WsJsonStream::on_message(proto::ws::Opcode, std::span<const char> payload) {
  const std::string_view text(payload.data(), payload.size());
  // Strings without escapes are views into the message; decoded ones go
  // here, and only a message whose escaped strings outgrow it costs a
  // buffer of its own, given back at once: a connection holds nothing
  // between messages.
  char scratch[kStackScratch];
  wsjson::Request request;
  const wsjson::ReadResult read = wsjson::read_request(text, limits_, scratch, request);
  if (read.error == wsjson::Error::no_room) {
    std::vector<char> large(text.size());
    wsjson::Request again;
    reply(wsjson::read_request(text, limits_, large, again), again);
  } else {
    reply(read, request);
  }
  // The next request waits until there is room for its answer (see
  // input_held()); the drain that makes room reads on.
  paused_ = paused_ || input_held();
}

void WsJsonStream::reply(const wsjson::ReadResult& read, const wsjson::Request& request) {
  if (!read.ok()) return refuse(request.req, refusal_reason(read));
  answer(request);
}

void WsJsonStream::answer(const wsjson::Request& request) {
  switch (request.op) {
    case wsjson::Op::subscribe:
      return subscribe(request);
    case wsjson::Op::unsubscribe:
      if (!subscriptions_.leave(request.topic)) return refuse(request.req, "not subscribed");
      return send_ack({request.req, true, {}, {}, {}});
    case wsjson::Op::publish:
      return publish(request);
    case wsjson::Op::refresh:
      return refresh(request);
  }
}

void WsJsonStream::subscribe(const wsjson::Request& request) {
  std::optional<Policy> policy;
  if (!request.policy.empty()) {
    policy = delivery::parse_policy(request.policy);
    if (!policy || !services().config().policy.allows(*policy)) {
      char line[256];
      return refuse(request.req, policy_not_offered(services().config().policy, request.policy, line));
    }
  }
  // A client names its topics in the clients' alphabet: the server's own
  // ("$sys") are followed through their routes, and a name of that form
  // would make a topic outside topics.max.
  if (!proto::valid_topic_name(request.topic, services().hub().limits().max_topic_name)) {
    return refuse(request.req, services().answer(hub::HubStatus::bad_topic).text);
  }
  // A second subscribe would leave its own `since` and policy unused (and
  // its ack had no newest id to give): told so, not acked as if it took them.
  if (subscriptions_.follows(request.topic)) {
    return refuse(request.req, "already subscribed to this topic (unsubscribe first to change its policy or since)");
  }
  // A decision given later: the ack waits, and the request is read again
  // when it comes (ws_stream.hpp).
  if (const AuthOutcome a = peer().authorize(server::Action::subscribe, request.topic); !a.allowed()) {
    return a.is_pending() ? void() : refuse(request.req, a.text());
  }
  // The ack goes in the control lane, so it leaves before any replayed event.
  const Subscriptions::JoinResult joined = subscriptions_.join(request.topic, policy, request.since);
  switch (joined.status) {
    case Subscriptions::JoinStatus::ok: {
      if (joined.awaiting) {
        // The ack waits for the topic's place (placed()), and the requests
        // behind this one with it: acks stay in order.
        awaiting_subscribe_ = true;
        subscribe_req_ = request.req;
        subscribe_topic_ = request.topic;
        subscribe_since_ = services().loop().now();
        return;
      }
      // The topic's newest id: a client with no event yet resumes after it.
      char newest[hub::kMaxIdText];
      const std::string_view last_id(newest,
                                     subscriptions_.format_resume_id(joined.stream_epoch, joined.newest, newest));
      return send_ack({request.req, true, {}, last_id, {}});
    }
    case Subscriptions::JoinStatus::too_many:
      return refuse(request.req, "too many topics on this connection (topics.max_per_connection)");
    case Subscriptions::JoinStatus::refused:
      return refuse(request.req, services().answer(joined.refusal).text);
  }
}

void WsJsonStream::publish(const wsjson::Request& request) {
  if (services().config().ws.client_publish == 0) return refuse(request.req, "publishing is switched off");
  if (const AuthOutcome a = peer().authorize(server::Action::publish, request.topic); !a.allowed()) {
    return a.is_pending() ? void() : refuse(request.req, a.text());
  }
  hub::Hub& hub = services().hub();
  if (BrokerPublishes* publishes = services().broker_publishes()) {
    const hub::Message message{request.data, request.event, request.key};
    const hub::HubStatus checked = hub::check_publishable(request.topic, message, hub.limits().max_topic_name);
    if (checked != hub::HubStatus::ok) {
      count_publish(services().metrics(), checked);
      return refuse(request.req, services().answer(checked).text);
    }
    publish_req_ = request.req;
    const broker::PublishStatus status =
        publishes->publish(request.topic, {request.data, request.event, request.key}, *this, publish_ticket_);
    if (status != broker::PublishStatus::ok) return published(publish_ticket_, status, {}, {});
    awaiting_publish_ = true;
    return;
  }
  const hub::PublishResult r =
      hub.publish(request.topic, {request.data, request.event, request.key}, &peer().topic_allowance());
  count_publish(services().metrics(), r.status);
  if (r.status != hub::HubStatus::ok) return refuse(request.req, services().answer(r.status).text);
  char id_text[hub::kMaxIdText];
  send_ack({request.req, true, std::string_view(id_text, hub.format_id(r.id, id_text)), {}, {}});
}

void WsJsonStream::refresh(const wsjson::Request& request) {
  const AuthOutcome a = peer().refresh(request.token);
  if (!a.allowed()) {
    // The request is answered, then the connection ends the way a refused
    // upgrade would (4401, 4403, 4429): its old credentials are not kept
    // as a fallback, so a client never has to guess which ones it is on.
    refuse(request.req, a.text());
    return end(a.close_code(), a.text(), conn::CloseReason::protocol);
  }
  send_ack({request.req, true, {}, {}, {}});
  revoke_ungranted();
}

// All the notices in one control frame, behind the refresh's ack: a
// connection following topics.max_per_connection topics does not fill the
// control lane with them. Events of a revoked topic still waiting in the
// queue are dropped with it, as after an unsubscribe: only what the kernel
// holds already may still follow.
void WsJsonStream::revoke_ungranted() {
  buf::FrameBuilder notices(services().pool(), buf::Lane::control);
  std::string fields;
  bool revoked = false;
  bool told = true;
  for (const TopicSlot& slot : subscriptions_.topics()) {
    const std::string& topic = slot.name;
    if (topic.empty()) continue;
    const AuthOutcome a = peer().recheck(topic);
    if (a.allowed()) continue;
    fields.clear();
    buf::StringSink out(fields);
    out.append("\"topic\":");
    (void)proto::json::write_string(out, topic);  // a StringSink never refuses
    out.append(",\"reason\":");
    (void)proto::json::write_string(out, a.text());
    told = append_notice(notices, "revoked", fields) && told;
    revoked = true;
    (void)subscriptions_.leave(topic);  // empties the slot in place: the slots stay valid
  }
  if (!revoked) return;
  buf::FrameRef frame = told ? notices.finish() : buf::FrameRef();
  if (frame && outlet().send_control(std::move(frame)) == conn::EnqueueStatus::ok) return;
  // The client must not go on believing it still follows those topics.
  end(proto::ws::CloseCode::internal_error, "no room for a reply", conn::CloseReason::protocol);
}

void WsJsonStream::published(std::uint32_t, broker::PublishStatus status, broker::StreamId id, std::string_view) {
  const bool was_waiting = awaiting_publish_;
  awaiting_publish_ = false;
  if (status != broker::PublishStatus::ok) {
    count_broker_refusal(services().metrics());
    refuse(publish_req_, broker_refusal(status).text);
  } else {
    count_publish(services().metrics(), hub::HubStatus::ok);
    char id_text[broker::kMaxEventIdText];
    send_ack({publish_req_, true, std::string_view(id_text, broker::format_event_id(id, id_text)), {}, {}});
  }
  // The requests behind this one were left unread: on with them.
  if (was_waiting && !outlet().ended() && !input_held()) outlet().resume_input();
}

void WsJsonStream::placed(std::uint32_t, std::uint64_t epoch, std::uint64_t newest) {
  if (!awaiting_subscribe_) return;
  awaiting_subscribe_ = false;
  char id[hub::kMaxIdText];
  send_ack({subscribe_req_, true, {}, std::string_view(id, subscriptions_.format_resume_id(epoch, newest, id)), {}});
  if (!outlet().ended() && !input_held()) outlet().resume_input();
}

void WsJsonStream::sweep_waits(io::Loop::Clock::time_point now) {
  const auto limit = std::chrono::milliseconds(services().config().broker.placement_timeout_ms);
  if (!awaiting_subscribe_ || now - subscribe_since_ < limit) return;
  awaiting_subscribe_ = false;
  (void)subscriptions_.leave(subscribe_topic_);
  subscribe_topic_.clear();
  refuse(subscribe_req_, kNotPlacedInTime);
  if (!outlet().ended() && !input_held()) outlet().resume_input();
}

// An ack rides in the room left in the block of the control frame before
// it when that one is still queued: a client pipelining hundreds of
// requests gets them answered from a few blocks, in one write, and the
// acks it leaves unread are bounded in frames (ws.json_max_replies), so in
// blocks of the pool.
void WsJsonStream::send_ack(const wsjson::Ack& ack) {
  char text[kMaxAck];
  buf::FixedSink json(text, sizeof text);
  char wire[kMaxAck + proto::ws::kMaxHeaderSize];
  buf::FixedSink frame_bytes(wire, sizeof wire);
  if (wsjson::write_ack(json, ack) &&
      proto::ws::encode_frame(proto::ws::Opcode::text, true, false, std::span<const char>(json.text()), frame_bytes)) {
    if (outlet().queue().append_control(frame_bytes.text())) return outlet().want_flush();
    buf::FrameRef frame = buf::make_frame(services().pool(), buf::Lane::control, frame_bytes.text());
    if (frame && outlet().send_control(std::move(frame)) == conn::EnqueueStatus::ok) return;
  }
  // The pool is empty, or the lane full though input is held before it
  // fills: the client is told why it gets no more answers.
  end(proto::ws::CloseCode::internal_error, "no room for a reply", conn::CloseReason::protocol);
}

void WsJsonStream::cut_off() {
  subscriptions_.leave_all();
  WsStream::cut_off();
}

bool WsJsonStream::append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) {
  return append_json_notice(out, "{\"op\":\"", kind, json_fields);
}

}  // namespace sluice::session
