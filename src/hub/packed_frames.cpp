#include "hub/packed_frames.hpp"

#include <cstring>

#include "buf/fixed_sink.hpp"

namespace sluice::hub {

namespace {
// The largest record encoded on the stack: what packs into a default 4 KiB
// block (a quarter, less a header) fits.
constexpr std::size_t kStackRecord = 1024;

// A frame of `size` bytes (one that packs) that `write` puts in place in
// the slab writer's reservation; `write` may refuse, and nothing is taken.
template <typename Write>
buf::FrameRef write_packed(buf::Pool& pool, buf::SlabWriter& slabs, std::size_t size, Write write) {
  buf::Block* frame = slabs.reserve(pool, size);
  if (frame == nullptr || !write(buf::SlabWriter::bytes_at(frame))) return {};
  return slabs.commit(frame, size);
}
}  // namespace

buf::FrameRef make_payload_frame(buf::Pool& pool, buf::SlabWriter& slabs, const Message& message) {
  const std::size_t size = 1 + message.event.size() + message.data.size();
  const char event_length = static_cast<char>(message.event.size());
  if (buf::SlabWriter::packs(pool, size)) {
    return write_packed(pool, slabs, size, [&](char* at) {
      *at++ = event_length;
      // An empty view's data may be null, which memcpy must not see.
      for (const std::string_view part : {message.event, message.data}) {
        if (!part.empty()) std::memcpy(at, part.data(), part.size());
        at += part.size();
      }
      return true;
    });
  }
  buf::FrameBuilder payload(pool, slabs, size);
  payload.append(&event_length, 1);
  payload.append(message.event);
  payload.append(message.data);
  return payload.finish();
}

// The record is at least its id, name and data long: one surely too big to
// pack is not encoded twice to learn its size. One that may pack is encoded
// once, on the stack, and copied whole into its slab: sized first, it was
// encoded twice, through a sink's call per piece each time: a fifth of
// what one SSE subscriber's event cost the server, measured.
buf::FrameRef make_sse_frame(buf::Pool& pool, buf::SlabWriter& slabs, const proto::sse::Event& event) {
  const std::size_t at_least = event.id.size() + event.event.size() + event.data.size();
  if (at_least <= kStackRecord && buf::SlabWriter::packs(pool, at_least)) {
    char record[kStackRecord];
    buf::FixedSink out(record, sizeof record);
    const proto::sse::EncodeStatus status = proto::sse::encode(event, out);
    if (status == proto::sse::EncodeStatus::invalid_field) return {};
    const std::size_t size = out.text().size();
    if (status == proto::sse::EncodeStatus::ok && buf::SlabWriter::packs(pool, size)) {
      return write_packed(pool, slabs, size, [&](char* at) {
        std::memcpy(at, record, size);
        return true;
      });
    }
  }
  const std::size_t size = buf::SlabWriter::packs(pool, at_least) ? proto::sse::encoded_size(event) : at_least;
  buf::FrameBuilder builder(pool, slabs, size);
  if (proto::sse::encode(event, builder) != proto::sse::EncodeStatus::ok) return {};
  return builder.finish();
}

buf::FrameRef make_ws_frame(buf::Pool& pool, buf::SlabWriter& slabs, proto::ws::Opcode op,
                            std::span<const char> payload, proto::ws::Deflater* deflater) {
  if (deflater != nullptr) {
    const proto::ws::DeflateOutput compressed = deflater->compress(payload);
    if (!compressed.ok) return {};
    payload = compressed.bytes;
  }
  const std::size_t size = proto::ws::frame_header_size(payload.size(), false) + payload.size();
  const bool rsv1 = deflater != nullptr;
  // A packed one, the most published, is written in place: one copy of
  // the payload, no builder between.
  if (buf::SlabWriter::packs(pool, size)) {
    return write_packed(pool, slabs, size,
                        [&](char* at) { return proto::ws::write_frame(at, op, true, rsv1, payload); });
  }
  buf::FrameBuilder builder(pool, slabs, size);
  if (!proto::ws::encode_frame(op, true, rsv1, payload, builder)) return {};
  return builder.finish();
}

}  // namespace sluice::hub
