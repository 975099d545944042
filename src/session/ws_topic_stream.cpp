#include "session/ws_topic_stream.hpp"

#include "hub/hub.hpp"
#include "session/peer.hpp"
#include "session/services.hpp"

namespace sluice::session {

using proto::ws::CloseCode;

WsTopicStream::WsTopicStream(const WsSetup& setup, std::string topic)
    : WsStream(setup),
      topic_(std::move(topic)),
      subscriptions_(setup.services, setup.outlet, *this, hub::ws_message_form(deflate()),
                     setup.peer.topic_allowance()) {}

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
  // Most topic streams only read: the right to publish is asked for once,
  // when the client first uses it, and kept for the stream's life.
  if (!publisher_) {
    const AuthOutcome outcome = peer().authorize(server::Action::publish, topic_);
    if (outcome.is_pending()) return;  // the message is handed over again when the decision comes
    if (!outcome.allowed()) return end(outcome.close_code(), outcome.text(), conn::CloseReason::protocol);
    TopicPublisher::Owner& owner = *this;  // a private base, reachable here
    publisher_ = std::make_unique<TopicPublisher>(services(), outlet(), owner, topic_, peer().topic_allowance(),
                                                  memory(), memory_uncharged());
  }
  publisher_->publish(std::string_view(payload.data(), payload.size()));
}

void WsTopicStream::let_go() {
  subscriptions_.leave_all();
  if (publisher_) publisher_->release();
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

// 1013 (try again later): the message was not taken, and a publisher that
// reconnects later may well be.
void WsTopicStream::publish_failed(std::string_view reason) {
  end(CloseCode::try_again_later, reason, conn::CloseReason::protocol);
}

}  // namespace sluice::session
