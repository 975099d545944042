// What a WebSocket subscriber sends: pings, answered with pongs through the
// control lane (ahead of every event not yet on the wire), and its close,
// answered with a close frame behind the events already queued. A data
// message is refused: a subscriber socket has no buffer for one.
#include "buf/frame.hpp"
#include "embedded/push_server.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::embedded {

void PushServer::on_websocket_input(PushConnection& c) {
  Link& link = *c.link_;
  // Every turn consumes bytes or stops, and the input is bounded.
  while (c.phase_ == PushConnection::Phase::websocket && !link.input().empty()) {
    const std::string_view in = link.input();
    const proto::ws::DecodeResult r = c.decoder_.feed(std::span<const char>(in.data(), in.size()));
    link.consume(r.consumed);
    switch (r.status) {
      case proto::ws::DecodeStatus::need_more:
        if (r.consumed == 0) return;
        break;
      case proto::ws::DecodeStatus::ping: {
        buf::FrameRef pong = proto::ws::make_pong_frame(pool_, r.payload);
        if (!pong || link.out().push_control(std::move(pong)) != conn::EnqueueStatus::ok) {
          end_websocket(c, proto::ws::CloseCode::policy_violation, "pings come faster than they are answered");
        }
        break;
      }
      case proto::ws::DecodeStatus::pong:
        break;
      case proto::ws::DecodeStatus::message:
        end_websocket(c, proto::ws::CloseCode::unsupported_data, "this socket only sends");
        break;
      case proto::ws::DecodeStatus::close:
        end_websocket(c, r.close_code == proto::ws::CloseCode::no_status ? proto::ws::CloseCode::normal : r.close_code,
                      "");
        break;
      case proto::ws::DecodeStatus::error:
        end_websocket(c, r.close_code, r.error);
        break;
    }
  }
  if (c.phase_ == PushConnection::Phase::websocket) {
    if (link.input_closed()) {
      end(c);  // gone without a close frame
    } else {
      link.flush();
    }
  }
}

// The close frame goes behind the events already queued (nothing may
// follow it), then the link closes.
void PushServer::end_websocket(PushConnection& c, proto::ws::CloseCode code, std::string_view reason) {
  buf::FrameRef frame = proto::ws::make_close_frame(pool_, code, reason);
  if (frame) c.link_->out().push_last(std::move(frame));
  end(c);
}

}  // namespace sluice::embedded
