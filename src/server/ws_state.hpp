// Owns: WsState, what a session holds once it has become a WebSocket: its
// decoder, what was negotiated, and the ping it is waiting on.
#pragma once

#include <memory>
#include <string>

#include "io/loop.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_deflate.hpp"

namespace sluice::server {

struct WsState {
  explicit WsState(const proto::ws::DecoderLimits& limits) : decoder(limits) {}

  proto::ws::Decoder decoder;
  bool deflate = false;  // permessage-deflate was negotiated
  // The echo endpoint compresses its replies itself; fan-out frames use the
  // hub's shared Deflater instead.
  std::unique_ptr<proto::ws::Deflater> echo_deflater;
  std::string publish_topic;  // /ws/{topic}, /pub/{topic}: where the client's messages go
  // A message the hub could not take yet (busy, or out of pool memory):
  // while it is held the session reads nothing more, so the publisher's
  // own TCP window slows it down and nothing it sent is lost.
  std::string held;
  bool holding = false;
  io::Loop::Clock::time_point last_ping;
  bool awaiting_pong = false;
  bool close_sent = false;
};

}  // namespace sluice::server
