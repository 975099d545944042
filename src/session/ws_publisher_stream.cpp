#include "session/ws_publisher_stream.hpp"

#include "session/peer.hpp"
#include "session/services.hpp"

namespace sluice::session {

WsPublisherStream::WsPublisherStream(const WsSetup& setup, std::string topic)
    : WsStream(setup),
      publisher_(setup.services, setup.outlet, *this, std::move(topic), setup.peer.topic_allowance(), setup.memory,
                 memory_uncharged()) {}

void WsPublisherStream::on_message(proto::ws::Opcode, std::span<const char> payload) {
  if (end_if_publishing_off()) return;
  publisher_.publish(std::string_view(payload.data(), payload.size()));
}

void WsPublisherStream::publish_refused(hub::HubStatus status) {
  end_refused(status);
}

// 1013 (try again later): the message was not taken, and a publisher that
// reconnects later may well be.
void WsPublisherStream::publish_failed(std::string_view reason) {
  end(proto::ws::CloseCode::try_again_later, reason, conn::CloseReason::protocol);
}

}  // namespace sluice::session
