// Owns: WsJsonStream, a WebSocket on GET /ws speaking sluice's JSON
// protocol (docs/WEBSOCKET.md): the client subscribes (with `since` to
// resume), unsubscribes and publishes with one JSON object per text
// message, each answered by an ack; events arrive as {"op":"event",...}
// envelopes and notices as {"op":KIND,...}.
#pragma once

#include <string_view>

#include "session/subscriptions.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

class WsJsonStream final : public WsStream, private Subscriptions::Owner {
 public:
  explicit WsJsonStream(const WsSetup& setup);

  void before_flush() override { subscriptions_.before_flush(); }
  void on_drained() override { subscriptions_.on_drained(); }

 private:
  void on_message(proto::ws::Opcode opcode, std::span<const char> payload) override;
  void on_close_sent() override { subscriptions_.stop(); }
  void let_go() override { subscriptions_.leave_all(); }
  void cut_off() override;
  bool append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) override;
  // {"op":"ack","req":REQ,"ok":true[,"id":DETAIL]} or {...,"ok":false,"error":DETAIL}.
  void ack(std::string_view req, bool ok, std::string_view detail);

  Subscriptions subscriptions_;
};

}  // namespace sluice::session
