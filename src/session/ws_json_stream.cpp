// The requests are read with nlohmann's DOM parser for now; the protocol's
// own bounded codec will take its place here.
#include "session/ws_json_stream.hpp"

#include <nlohmann/json.hpp>

#include "buf/string_sink.hpp"
#include "hub/event_id.hpp"
#include "hub/hub.hpp"
#include "proto/json_text.hpp"
#include "session/peer.hpp"
#include "session/services.hpp"

namespace sluice::session {

namespace {

std::string_view json_string_field(const nlohmann::json& message, const char* name) {
  const auto it = message.find(name);
  return it != message.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                                : std::string_view();
}

}  // namespace

WsJsonStream::WsJsonStream(const WsSetup& setup)
    : WsStream(setup), subscriptions_(setup.services, setup.outlet, *this, hub::ws_envelope_form(deflate())) {}

void WsJsonStream::on_message(proto::ws::Opcode, std::span<const char> payload) {
  const nlohmann::json message = nlohmann::json::parse(std::string_view(payload.data(), payload.size()), nullptr, false);
  if (!message.is_object()) return ack({}, false, "not a JSON object");
  std::string req;
  if (const auto it = message.find("req"); it != message.end()) req = it->dump();
  const std::string_view op = json_string_field(message, "op");
  const std::string_view topic = json_string_field(message, "topic");
  const auto& config = services().config();
  if (op == "subscribe") {
    std::optional<Policy> policy;
    if (const std::string_view name = json_string_field(message, "policy"); !name.empty()) {
      policy = delivery::parse_policy(name);
      if (!policy || !config.policy.allows(*policy)) return ack(req, false, "policy not offered here");
    }
    if (const AuthOutcome a = peer().authorize(server::Action::subscribe, topic); !a.allowed()) {
      return ack(req, false, a.text());
    }
    // The ack goes in the control lane, so it leaves before any replayed event.
    const Subscriptions::JoinResult joined = subscriptions_.join(topic, policy, json_string_field(message, "since"));
    switch (joined.status) {
      case Subscriptions::JoinStatus::ok:
        return ack(req, true, {});
      case Subscriptions::JoinStatus::too_many:
        return ack(req, false, "too many topics on this connection");
      case Subscriptions::JoinStatus::refused:
        return ack(req, false, services().answer(joined.refusal).text);
    }
  }
  if (op == "unsubscribe") return ack(req, subscriptions_.leave(topic), "not subscribed");
  if (op == "publish") {
    if (config.ws.client_publish == 0) return ack(req, false, "publishing is switched off");
    if (const AuthOutcome a = peer().authorize(server::Action::publish, topic); !a.allowed()) {
      return ack(req, false, a.text());
    }
    const hub::PublishResult r = services().hub().publish(
        topic, {json_string_field(message, "data"), json_string_field(message, "event"), json_string_field(message, "key")});
    if (r.status != hub::HubStatus::ok) return ack(req, false, services().answer(r.status).text);
    char id_text[hub::kMaxIdText];
    return ack(req, true, std::string_view(id_text, services().hub().format_id(r.id, id_text)));
  }
  ack(req, false, "unknown op");
}

void WsJsonStream::ack(std::string_view req, bool ok, std::string_view detail) {
  std::string text = "{\"op\":\"ack\",\"req\":";
  text.append(req.empty() ? "null" : req);
  text.append(ok ? ",\"ok\":true" : ",\"ok\":false");
  if (!detail.empty()) {
    buf::StringSink out(text);
    out.append(ok ? ",\"id\":" : ",\"error\":");
    proto::append_json_string(out, detail);
  }
  text.append("}");
  send_text(text, buf::Lane::control);
}

void WsJsonStream::cut_off() {
  subscriptions_.leave_all();
  WsStream::cut_off();
}

bool WsJsonStream::append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) {
  return append_json_notice(out, "{\"op\":\"", kind, json_fields);
}

}  // namespace sluice::session
