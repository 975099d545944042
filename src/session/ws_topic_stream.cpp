#include "session/ws_topic_stream.hpp"

#include "hub/hub.hpp"
#include "session/services.hpp"

namespace sluice::session {

using proto::ws::CloseCode;

WsTopicStream::WsTopicStream(const WsSetup& setup, std::string topic)
    : WsStream(setup),
      topic_(std::move(topic)),
      subscriptions_(setup.services, setup.outlet, *this, hub::ws_message_form(deflate())),
      publisher_(setup.services, setup.outlet, *this, topic_) {}

void WsTopicStream::open(std::string_view last_id) {
  const Subscriptions::JoinResult joined = subscriptions_.join(topic_, std::nullopt, last_id);
  if (joined.status != Subscriptions::JoinStatus::ok) {
    end(CloseCode::policy_violation, services().answer(joined.refusal).text, conn::CloseReason::protocol);
  }
}

void WsTopicStream::on_message(proto::ws::Opcode, std::span<const char> payload) {
  if (services().config().ws.client_publish == 0) {
    return end(CloseCode::policy_violation, "publishing is switched off", conn::CloseReason::protocol);
  }
  publisher_.publish(std::string_view(payload.data(), payload.size()));
}

void WsTopicStream::let_go() {
  subscriptions_.leave_all();
  publisher_.release();
}

void WsTopicStream::cut_off() {
  subscriptions_.leave_all();
  WsStream::cut_off();
}

bool WsTopicStream::append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) {
  return append_json_notice(out, "{\"sluice\":\"", kind, json_fields);
}

void WsTopicStream::publish_refused(hub::HubStatus status) {
  end(CloseCode::policy_violation, services().answer(status).text, conn::CloseReason::protocol);
}

}  // namespace sluice::session
