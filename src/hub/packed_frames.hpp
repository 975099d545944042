// Owns: the frames of an event, built through a SlabWriter so that a small
// one is packed with others into a shared pool block (buf/slab_writer.hpp)
// rather than holding a block of its own: the payload other forms are built
// from, the SSE record, a WebSocket message. Each works out the frame's size
// first, since a packed frame's room is taken before it is written; a frame
// too big to pack gets blocks of its own. An empty FrameRef means the pool
// refused the room.
#pragma once

#include <span>
#include <string_view>

#include "buf/frame.hpp"
#include "buf/slab_writer.hpp"
#include "hub/hub_types.hpp"
#include "proto/sse.hpp"
#include "proto/ws_deflate.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::hub {

// One byte of event-name length, the name, the data.
[[nodiscard]] buf::FrameRef make_payload_frame(buf::Pool& pool, buf::SlabWriter& slabs, const Message& message);

[[nodiscard]] buf::FrameRef make_sse_frame(buf::Pool& pool, buf::SlabWriter& slabs, const proto::sse::Event& event);

// One unmasked WebSocket message of `payload`; with a `deflater`, the
// payload permessage-deflated by it (RSV1 set).
[[nodiscard]] buf::FrameRef make_ws_frame(buf::Pool& pool, buf::SlabWriter& slabs, proto::ws::Opcode op,
                                          std::span<const char> payload, proto::ws::Deflater* deflater);

}  // namespace sluice::hub
