// A session as a WebSocket: the upgrade, incoming frames, the /ws JSON
// protocol, and liveness (server pings, pong deadlines).
#include <nlohmann/json.hpp>

#include "hub/event_id.hpp"
#include "buf/string_sink.hpp"
#include "proto/json_text.hpp"
#include "proto/ws_handshake.hpp"
#include "server/session.hpp"
#include "server/worker.hpp"
#include "ws_state.hpp"

namespace sluice::server {

namespace {

using proto::ws::CloseCode;
using proto::ws::DecodeStatus;
using proto::ws::Opcode;

proto::ws::HandshakeRequest handshake_request(const proto::http1::Request& r) {
  return {r.method_text,
          r.version_minor,
          r.header("Upgrade"),
          r.header("Connection"),
          r.header("Sec-WebSocket-Key"),
          r.header("Sec-WebSocket-Version"),
          r.header("Sec-WebSocket-Protocol"),
          r.header("Sec-WebSocket-Extensions"),
          r.header("Origin")};
}

std::string_view json_string_field(const nlohmann::json& message, const char* name) {
  const auto it = message.find(name);
  return it != message.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                                : std::string_view();
}

}  // namespace

void Session::upgrade(const proto::http1::Request& request, State target, std::string_view topic) {
  const WsConfig& ws = worker_.config().ws;
  proto::ws::HandshakeOptions options{worker_.subprotocols(), worker_.allowed_origins(), ws.deflate != 0};
  const proto::ws::HandshakeResult result = proto::ws::check_handshake(handshake_request(request), options);
  if (result.http_status != 101) {
    keep_alive_ = false;
    if (result.http_status == 426) {
      return respond({.status = 426, .body = "WebSocket version 13 only\n", .extra_headers = "Sec-WebSocket-Version: 13\r\n"});
    }
    return respond({.status = result.http_status, .body = result.reason});
  }
  auto state = std::make_unique<WsState>(proto::ws::DecoderLimits{static_cast<std::size_t>(ws.max_message)});
  state->deflate = result.deflate.enabled && state->decoder.set_deflate(result.deflate);
  if (target == State::ws_echo && state->deflate) state->echo_deflater = std::make_unique<proto::ws::Deflater>();
  state->publish_topic = std::string(topic);
  state->last_ping = loop().now();
  buf::FrameBuilder builder(worker_.pool(), buf::Lane::control);
  if (!proto::ws::write_handshake_response(result, builder)) return close_now(conn::CloseReason::io_error);
  buf::FrameRef reply = builder.finish();
  if (!reply || send_control(std::move(reply)) != conn::EnqueueStatus::ok) return close_now(conn::CloseReason::io_error);
  // From here on the session speaks WebSocket, so a replay below is framed
  // as messages.
  ws_ = std::move(state);
  state_ = target;
  ++worker_.mutable_stats().streams;
  worker_.opened(*this, request.path);
  if (target == State::ws_topic && join(topic, std::nullopt, request.header("Last-Event-ID")) != JoinStatus::ok) {
    ws_close(CloseCode::policy_violation, "topic refused");
    close_after_flush(conn::CloseReason::protocol);
  }
}

void Session::on_ws_input(std::string& input) {
  std::size_t used = 0;
  while (!closed() && !closing() && !ws_->holding && used < input.size()) {
    const proto::ws::DecodeResult r =
        ws_->decoder.feed(std::span<const char>(input.data() + used, input.size() - used));
    used += r.consumed;
    switch (r.status) {
      case DecodeStatus::need_more:
        break;
      case DecodeStatus::message:
        on_ws_message(r.opcode, r.payload);
        continue;
      case DecodeStatus::ping: {
        // A flood of pings meets a full control lane: RFC 6455 5.5.3 lets us
        // answer only the latest, so the rest go unanswered, not queued.
        buf::FrameRef pong = proto::ws::make_pong_frame(worker_.pool(), r.payload);
        if (pong) (void)send_control(std::move(pong));
        continue;
      }
      case DecodeStatus::pong:
        ws_->awaiting_pong = false;
        continue;
      case DecodeStatus::close:
        ws_close(r.close_code == CloseCode::no_status ? CloseCode::normal : r.close_code, {});
        close_after_flush(conn::CloseReason::peer);
        break;
      case DecodeStatus::error:
        ++worker_.mutable_stats().protocol_errors;
        ws_close(r.close_code, r.error);
        close_after_flush(conn::CloseReason::protocol);
        break;
    }
    break;
  }
  input.erase(0, used);
}

void Session::on_ws_message(Opcode opcode, std::span<const char> payload) {
  const std::string_view text(payload.data(), payload.size());
  switch (state_) {
    case State::ws_echo: {
      buf::FrameRef echo = ws_->echo_deflater
                               ? proto::ws::make_deflated_frame(worker_.pool(), buf::Lane::data, *ws_->echo_deflater,
                                                                opcode, payload)
                               : proto::ws::make_message_frame(worker_.pool(), buf::Lane::data, opcode, payload);
      if (!echo || send_data(std::move(echo)) != conn::EnqueueStatus::ok) {
        ws_close(CloseCode::internal_error, "echo queue full");
        close_after_flush(conn::CloseReason::slow_consumer);
      }
      return;
    }
    case State::ws_json:
      return on_ws_json(text);
    default:
      if (worker_.config().ws.client_publish == 0) {
        ws_close(CloseCode::policy_violation, "publishing is switched off");
        return close_after_flush(conn::CloseReason::protocol);
      }
      publish_or_hold(text);
  }
}

void Session::publish_or_hold(std::string_view data) {
  const hub::PublishResult r = publish_or_wait(data);
  if (r.status == hub::HubStatus::ok) return;
  if (r.status != hub::HubStatus::busy && r.status != hub::HubStatus::no_memory) return refuse_publish(r.status);
  ws_->held.assign(data);
  ws_->holding = true;
  ++worker_.mutable_stats().publishes_held;
  worker_.hold_publisher(this);
}

void Session::retry_held_message() {
  if (closed() || closing() || !ws_ || !ws_->holding) return;
  const hub::PublishResult r = publish_or_wait(ws_->held);
  if (r.status == hub::HubStatus::busy || r.status == hub::HubStatus::no_memory) return worker_.hold_publisher(this);
  ws_->holding = false;
  if (r.status != hub::HubStatus::ok) return refuse_publish(r.status);
  resume_input();
}

// On `busy` the hub is asked to wake this loop once a loop has delivered,
// then the publish is tried once more: a delivery between the first try
// and the request would otherwise wake nobody.
hub::PublishResult Session::publish_or_wait(std::string_view data) {
  const hub::PublishResult r = worker_.hub().publish(ws_->publish_topic, {data, {}, {}});
  if (r.status != hub::HubStatus::busy) return r;
  worker_.hub().wait_for_room(ws_->publish_topic);
  return worker_.hub().publish(ws_->publish_topic, {data, {}, {}});
}

void Session::refuse_publish(hub::HubStatus status) {
  ws_close(CloseCode::policy_violation,
           status == hub::HubStatus::bad_topic ? "bad topic name" : "topic limit reached");
  close_after_flush(conn::CloseReason::protocol);
}

// The /ws protocol: one JSON object per text message, see docs/PROTOCOL.md.
void Session::on_ws_json(std::string_view text) {
  const nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
  if (!message.is_object()) return ws_ack({}, false, "not a JSON object");
  std::string req;
  if (const auto it = message.find("req"); it != message.end()) req = it->dump();
  const std::string_view op = json_string_field(message, "op");
  const std::string_view topic = json_string_field(message, "topic");
  if (op == "subscribe") {
    std::optional<conn::Policy> policy;
    if (const std::string_view name = json_string_field(message, "policy"); !name.empty()) {
      policy = conn::parse_policy(name);
      if (!policy || !worker_.config().policy.allows(*policy)) return ws_ack(req, false, "policy not offered here");
    }
    // The ack goes in the control lane, so it leaves before any replayed event.
    switch (join(topic, policy, json_string_field(message, "since"))) {
      case JoinStatus::ok:
        return ws_ack(req, true, {});
      case JoinStatus::too_many:
        return ws_ack(req, false, "too many topics on this connection");
      case JoinStatus::unavailable:
        return ws_ack(req, false, "topic limit reached");
      case JoinStatus::bad_topic:
        return ws_ack(req, false, "bad topic name");
    }
  }
  if (op == "unsubscribe") return ws_ack(req, leave(topic), "not subscribed");
  if (op == "publish") {
    if (worker_.config().ws.client_publish == 0) return ws_ack(req, false, "publishing is switched off");
    const hub::PublishResult r = worker_.hub().publish(
        topic, {json_string_field(message, "data"), json_string_field(message, "event"), json_string_field(message, "key")});
    if (r.status != hub::HubStatus::ok) return ws_ack(req, false, "refused");
    char id_text[hub::kMaxIdText];
    return ws_ack(req, true, std::string_view(id_text, worker_.hub().format_id(r.id, id_text)));
  }
  ws_ack(req, false, "unknown op");
}

// {"op":"ack","req":REQ,"ok":true[,"id":DETAIL]} or {...,"ok":false,"error":DETAIL}.
void Session::ws_ack(std::string_view req, bool ok, std::string_view detail) {
  std::string text = "{\"op\":\"ack\",\"req\":";
  text.append(req.empty() ? "null" : req);
  text.append(ok ? ",\"ok\":true" : ",\"ok\":false");
  if (!detail.empty()) {
    buf::StringSink out(text);
    out.append(ok ? ",\"id\":" : ",\"error\":");
    proto::append_json_string(out, detail);
  }
  text.append("}");
  ws_send(text, buf::Lane::control);
}

void Session::ws_send(std::string_view text, buf::Lane lane) {
  buf::FrameRef frame = proto::ws::make_message_frame(worker_.pool(), lane, Opcode::text, std::span<const char>(text));
  if (frame) (void)(lane == buf::Lane::control ? send_control(std::move(frame)) : send_data(std::move(frame)));
}

void Session::ws_close(CloseCode code, std::string_view reason) {
  if (ws_->close_sent) return;
  ws_->close_sent = true;
  buf::FrameRef close = proto::ws::make_close_frame(worker_.pool(), code, reason.substr(0, proto::ws::kMaxCloseReason));
  if (close) send_last(std::move(close));
}

void Session::check_liveness(io::Loop::Clock::time_point now) {
  const WsConfig& ws = worker_.config().ws;
  if (ws_->holding) {
    // Its pong may sit unread behind the held message: not its fault.
    ws_->awaiting_pong = false;
    ws_->last_ping = now;
    return;
  }
  const auto since_ping = std::chrono::duration_cast<std::chrono::milliseconds>(now - ws_->last_ping).count();
  if (ws_->awaiting_pong) {
    if (since_ping > ws.pong_timeout_ms) close_now(conn::CloseReason::timeout);
    return;
  }
  if (since_ping < ws.ping_interval_ms) return;
  buf::FrameRef ping = proto::ws::make_ping_frame(worker_.pool(), {});
  if (ping && send_control(std::move(ping)) == conn::EnqueueStatus::ok) {
    ws_->last_ping = now;
    ws_->awaiting_pong = true;
  }
}

}  // namespace sluice::server
