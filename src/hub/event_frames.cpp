#include "hub/event_frames.hpp"

#include "hub/history.hpp"
#include "buf/string_sink.hpp"
#include "hub/packed_frames.hpp"
#include "proto/utf8.hpp"
#include "proto/ws_encoder.hpp"
#include "proto/ws_json_writer.hpp"

namespace sluice::hub {

namespace {

template <typename Slot, typename Build>
const buf::FrameRef& once(Slot& slot, Build build) {
  if (!slot.tried) {
    slot.tried = true;
    slot.frame = build();
  }
  return slot.frame;
}

}  // namespace

ScratchPool::~ScratchPool() {
  for (std::atomic<FrameScratch*>& slot : slots_) delete slot.load(std::memory_order_acquire);
}

ScratchPool::Lease ScratchPool::lend() {
  for (std::atomic<FrameScratch*>& slot : slots_) {
    if (slot.load(std::memory_order_relaxed) == nullptr) continue;
    if (FrameScratch* scratch = slot.exchange(nullptr, std::memory_order_acquire)) {
      return Lease(*this, std::unique_ptr<FrameScratch>(scratch));
    }
  }
  {
    const std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<FrameScratch> scratch = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(scratch));
    }
  }
  return Lease(*this, std::make_unique<FrameScratch>());
}

void ScratchPool::give_back(std::unique_ptr<FrameScratch> scratch) {
  for (std::atomic<FrameScratch*>& slot : slots_) {
    FrameScratch* empty = nullptr;
    if (slot.compare_exchange_strong(empty, scratch.get(), std::memory_order_release, std::memory_order_relaxed)) {
      (void)scratch.release();  // the slot owns it now
      return;
    }
  }
  const std::lock_guard lock(mutex_);
  idle_.push_back(std::move(scratch));
}

const buf::FrameRef& EventFrames::kept_or_built(WireForm form) {
  switch (form) {
    case WireForm::sse:
      return sse_form();
    case WireForm::ws_message:
    case WireForm::ws_message_deflated:
      return ws_message(form == WireForm::ws_message_deflated);
    case WireForm::ws_envelope:
    case WireForm::ws_envelope_deflated:
      return ws_envelope(form == WireForm::ws_envelope_deflated);
  }
  return sse_form();
}

buf::FrameRef EventFrames::take(WireForm form) {
  const buf::FrameRef& frame = this->form(form);
  Slot& built = built_slot(form);
  if (&frame == &built.frame) return std::move(built.frame);
  return frame;  // the caller's own, or a prebuilt one: shared
}

EventFrames::Slot& EventFrames::built_slot(WireForm form) {
  switch (form) {
    case WireForm::sse:
      break;
    case WireForm::ws_message:
    case WireForm::ws_message_deflated:
      return ws_[form == WireForm::ws_message_deflated];
    case WireForm::ws_envelope:
    case WireForm::ws_envelope_deflated:
      return envelope_[form == WireForm::ws_envelope_deflated];
  }
  return sse_built_;
}

const buf::FrameRef& EventFrames::sse_form() {
  if (sse_) return sse_;
  return once(sse_built_, [this] {
    load_payload();
    buf::FrameRef frame = make_sse_frame(pool_, scratch_.slabs, {id_.view(), event_, data_});
    frame.set_published_ns(payload_source().published_ns());
    return frame;
  });
}

// The scratch's buffer is shared by every EventFrames of the loop (a
// drain's events each have one): event_ and data_ are good only while it
// holds this event's bytes, so an event whose bytes another loaded since
// loads them again, rather than building from that one's.
void EventFrames::load_payload() {
  if (from_message_ || (loaded_ && scratch_.payload_of == this)) return;
  loaded_ = true;
  scratch_.payload_of = this;
  std::string& bytes = scratch_.payload;
  const buf::FrameRef& source = payload_source();
  bytes.resize(source.size());
  source.copy_to(bytes.data(), bytes.size());
  if (!payload_) {
    // A WebSocket message: no name, and the data after the frame's header,
    // UTF-8 when it went as text.
    event_ = {};
    data_ = std::string_view(bytes).substr(bytes.size() - proto::ws::unmasked_payload_size(bytes.size()));
    const auto opcode = static_cast<proto::ws::Opcode>(bytes.empty() ? 0 : bytes[0] & 0x0F);
    utf8_ = opcode == proto::ws::Opcode::text ? 1 : 0;
    return;
  }
  const std::size_t event_length = bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]);
  const std::string_view all(bytes);
  event_ = all.substr(std::min<std::size_t>(1, all.size()), event_length);
  data_ = all.substr(std::min(all.size(), 1 + event_length));
}

const buf::FrameRef& EventFrames::payload_source() const {
  if (payload_ || prebuilt_ == nullptr) return payload_;
  return prebuilt_[ws_index(WireForm::ws_message)];
}

bool EventFrames::utf8() {
  if (utf8_ < 0) utf8_ = proto::ws::is_valid_utf8(data_) ? 1 : 0;
  return utf8_ == 1;
}

const buf::FrameRef& EventFrames::ws_message(bool deflated) {
  return once(ws_[deflated], [this, deflated] {
    load_payload();
    return build_ws(data_, utf8(), deflated);
  });
}

const buf::FrameRef& EventFrames::ws_envelope(bool deflated) {
  return once(envelope_[deflated], [this, deflated] { return build_ws(json_envelope(), true, deflated); });
}

// A form built here (this and sse_form()) carries its event's publish
// time, as the forms the publisher built do.
buf::FrameRef EventFrames::build_ws(std::string_view payload, bool text, bool deflated) {
  const proto::ws::Opcode op = text ? proto::ws::Opcode::text : proto::ws::Opcode::binary;
  const std::span<const char> bytes(payload.data(), payload.size());
  if (deflated && !scratch_.deflater) scratch_.deflater.emplace();
  buf::FrameRef frame = make_ws_frame(pool_, scratch_.slabs, op, bytes, deflated ? &*scratch_.deflater : nullptr);
  frame.set_published_ns(payload_source().published_ns());
  return frame;
}

// {"op":"event","topic":"t","id":"E:S","event":"e","data":"..."}; data that
// is not UTF-8 cannot be a JSON string and goes as "data_b64".
std::string_view EventFrames::json_envelope() {
  load_payload();
  std::string& json = scratch_.json;
  json.clear();
  buf::StringSink out(json);
  (void)proto::wsjson::write_event(out, {topic_, id_.view(), event_, data_, !utf8()});  // a StringSink never refuses
  return json;
}

}  // namespace sluice::hub
