#include "session/ws_json_stream.hpp"

#include <algorithm>

#include "buf/fixed_sink.hpp"
#include "hub/event_id.hpp"
#include "hub/hub.hpp"
#include "proto/ws_json_writer.hpp"
#include "session/services.hpp"

namespace sluice::session {

namespace {

namespace wsjson = proto::wsjson;

// A scratch buffer past this size is given back after the message that
// needed it: a connection keeps no more than this between messages.
constexpr std::size_t kKeptScratch = 4096;

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

}  // namespace

WsJsonStream::WsJsonStream(const WsSetup& setup)
    : WsStream(setup),
      subscriptions_(setup.services, setup.outlet, *this, hub::ws_envelope_form(deflate())),
      limits_(limits_from(setup.services.config())),
      max_replies_(reply_bound(setup.services.config(), setup.outlet.queue().limits().max_control_frames)) {}

void WsJsonStream::on_drained() {
  subscriptions_.on_drained();
  if (!paused_) return;
  paused_ = false;
  outlet().resume_input();
}

void WsJsonStream::on_message(proto::ws::Opcode, std::span<const char> payload) {
  const std::string_view text(payload.data(), payload.size());
  if (scratch_.size() < text.size()) scratch_.resize(text.size());
  wsjson::Request request;
  const wsjson::ReadResult read = wsjson::read_request(text, limits_, scratch_, request);
  if (read.ok()) {
    answer(request);
  } else {
    refuse(request.req, read.reason);
  }
  if (scratch_.size() > kKeptScratch) std::string().swap(scratch_);
  // The next request waits until there is room for its answer (see
  // input_held()); the drain that makes room reads on.
  paused_ = paused_ || input_held();
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
  }
}

void WsJsonStream::subscribe(const wsjson::Request& request) {
  std::optional<Policy> policy;
  if (!request.policy.empty()) {
    policy = delivery::parse_policy(request.policy);
    if (!policy || !services().config().policy.allows(*policy)) return refuse(request.req, "policy not offered here");
  }
  // The ack goes in the control lane, so it leaves before any replayed event.
  const Subscriptions::JoinResult joined = subscriptions_.join(request.topic, policy, request.since);
  switch (joined.status) {
    case Subscriptions::JoinStatus::ok:
      return send_ack({request.req, true, {}, {}, {}});
    case Subscriptions::JoinStatus::too_many:
      return refuse(request.req, "too many topics on this connection");
    case Subscriptions::JoinStatus::refused:
      return refuse(request.req, services().answer(joined.refusal).text);
  }
}

void WsJsonStream::publish(const wsjson::Request& request) {
  if (services().config().ws.client_publish == 0) return refuse(request.req, "publishing is switched off");
  hub::Hub& hub = services().hub();
  const hub::PublishResult r = hub.publish(request.topic, {request.data, request.event, request.key});
  if (r.status != hub::HubStatus::ok) return refuse(request.req, services().answer(r.status).text);
  char id_text[hub::kMaxIdText];
  send_ack({request.req, true, std::string_view(id_text, hub.format_id(r.id, id_text)), {}, {}});
}

void WsJsonStream::send_ack(const wsjson::Ack& ack) {
  char text[kMaxAck];
  buf::FixedSink out(text, sizeof text);
  if (wsjson::write_ack(out, ack)) {
    buf::FrameRef frame = proto::ws::make_message_frame(services().pool(), buf::Lane::control, proto::ws::Opcode::text,
                                                        std::span<const char>(out.text()));
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
