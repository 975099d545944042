// Owns: GateFrames, the control frames a latency gate (conn/latency_gate.hpp)
// queues to its reader that the reader's application never sees, each in
// the form of the reader's protocol.
#pragma once

#include "buf/frame.hpp"

namespace sluice::conn {

struct GateFrames {
  // A frame whose acknowledgement carries the reader's window (an SSE
  // blank line, an empty WebSocket ping).
  buf::FrameRef probe;
  // Padding: bytes the reader's kernel takes and its application skips (SSE
  // comments, unsolicited WebSocket pongs), some hundred of them here and
  // some kilobytes in wide_padding, queued as often as a padding asks.
  // Null: the gate sends none.
  buf::FrameRef padding;
  buf::FrameRef wide_padding;
};

}  // namespace sluice::conn
