#include "ws_echo_stream.hpp"

#include <memory>

#include "proto/ws_deflate.hpp"
#include "proto/ws_encoder.hpp"
#include "server/ws_routes.hpp"
#include "session/services.hpp"
#include "session/ws_stream.hpp"

namespace sluice::test {

namespace {

class EchoStream final : public session::WsStream {
 public:
  explicit EchoStream(const session::WsSetup& setup) : WsStream(setup) {
    // Fan-out frames share the hub's Deflater; an echo compresses its own.
    if (deflate()) deflater_ = std::make_unique<proto::ws::Deflater>();
  }

 private:
  void on_message(proto::ws::Opcode opcode, std::span<const char> payload) override {
    buf::Pool& pool = services().pool();
    buf::FrameRef echo = deflater_ ? proto::ws::make_deflated_frame(pool, buf::Lane::data, *deflater_, opcode, payload)
                                   : proto::ws::make_message_frame(pool, buf::Lane::data, opcode, payload);
    if (!echo || outlet().send_data(std::move(echo)) != conn::EnqueueStatus::ok) {
      end(proto::ws::CloseCode::internal_error, "echo queue full", conn::CloseReason::slow_consumer);
    }
  }

  std::unique_ptr<proto::ws::Deflater> deflater_;
};

}  // namespace

void add_echo_endpoint(server::Server& server) {
  server::add_ws_route(server, {std::string(kEchoPath), [](const session::WsSetup& setup) {
                                  return std::make_unique<EchoStream>(setup);
                                }});
}

}  // namespace sluice::test
