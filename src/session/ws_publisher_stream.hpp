// Owns: WsPublisherStream, a WebSocket on GET /pub/{topic}: every message
// the client sends is one event of the topic; nothing is sent back but
// pongs and the close.
#pragma once

#include <string>

#include "session/topic_publisher.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

class WsPublisherStream final : public WsStream, private TopicPublisher::Owner {
 public:
  WsPublisherStream(const WsSetup& setup, std::string topic);

 private:
  void on_message(proto::ws::Opcode opcode, std::span<const char> payload) override;
  [[nodiscard]] bool input_held() const override { return publisher_.holding(); }
  void let_go() override { publisher_.release(); }
  void publish_refused(hub::HubStatus status) override;
  void publish_failed(std::string_view reason) override;
  void hold_refused(buf::Growth growth) override { refuse_for_memory(growth); }

  TopicPublisher publisher_;
};

}  // namespace sluice::session
