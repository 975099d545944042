// What a WebSocket subscriber sends: pings, answered with pongs through the
// control lane (ahead of every event not yet on the wire), and its close,
// answered with a close frame behind the events already queued. A data
// message is refused: a subscriber socket has no buffer for one.
#include "buf/frame.hpp"
#include "embedded/push_server.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::embedded {

// Of the pings that come in together only the latest is answered, when
// what came in is read or before anything else is answered: a pong not yet
// sent is as good as none to the client, and a burst of pings takes one
// control slot instead of one each.
void PushServer::on_websocket_input(PushConnection& c) {
  Link& link = *c.link_;
  buf::FrameRef pong;
  // Every turn consumes bytes or stops, and the input is bounded.
  while (c.phase_ == PushConnection::Phase::websocket && !link.input().empty()) {
    const std::string_view in = link.input();
    const proto::ws::DecodeResult r = c.decoder_.feed(std::span<const char>(in.data(), in.size()));
    link.consume(r.consumed);
    if (r.status == proto::ws::DecodeStatus::ping) {
      pong = buf::FrameRef();  // its block back before the next is taken
      pong = proto::ws::make_pong_frame(pool_, r.payload);
      if (!pong) end_websocket(c, proto::ws::CloseCode::policy_violation, "no room to answer a ping");
      continue;
    }
    if (r.status == proto::ws::DecodeStatus::need_more && r.consumed == 0) break;
    if (pong && !answer_ping(c, std::move(pong))) return;
    switch (r.status) {
      case proto::ws::DecodeStatus::need_more:
      case proto::ws::DecodeStatus::ping:
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
  if (pong && !answer_ping(c, std::move(pong))) return;
  if (c.phase_ == PushConnection::Phase::websocket) {
    if (link.input_closed()) {
      end(c);  // gone without a close frame
    } else {
      link.flush();
    }
  }
}

bool PushServer::answer_ping(PushConnection& c, buf::FrameRef pong) {
  if (c.link_->out().push_control(std::move(pong)) == conn::EnqueueStatus::ok) return true;
  end_websocket(c, proto::ws::CloseCode::policy_violation, "pings come faster than they are answered");
  return false;
}

// The close frame goes behind the events already queued (nothing may
// follow it), then the link closes.
void PushServer::end_websocket(PushConnection& c, proto::ws::CloseCode code, std::string_view reason) {
  buf::FrameRef frame = proto::ws::make_close_frame(pool_, code, reason);
  if (frame) c.link_->out().push_last(std::move(frame));
  end(c);
}

}  // namespace sluice::embedded
