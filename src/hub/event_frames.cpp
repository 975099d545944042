#include "sluice/hub/event_frames.hpp"

#include <openssl/evp.h>

#include "sluice/proto/json_text.hpp"
#include "sluice/proto/sse.hpp"
#include "sluice/proto/utf8.hpp"
#include "sluice/proto/ws_encoder.hpp"

namespace sluice::hub {

namespace {

// Appends into a std::string whose capacity is reused event after event.
struct StringSink final : buf::Sink {
  explicit StringSink(std::string& out) : text(out) {}
  using Sink::append;
  bool append(const char* data, std::size_t n) override {
    text.append(data, n);
    return true;
  }
  std::string& text;
};

void append_base64(std::string& out, std::string_view bytes) {
  constexpr std::size_t kChunk = 48;  // whole 3-byte groups: no padding until the end
  unsigned char encoded[kChunk / 3 * 4 + 1];
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const std::string_view part = bytes.substr(at, kChunk);
    const int n = EVP_EncodeBlock(encoded, reinterpret_cast<const unsigned char*>(part.data()),
                                  static_cast<int>(part.size()));
    out.append(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
  }
}

template <typename Build>
const buf::FrameRef& once(auto& slot, Build build) {
  if (!slot.tried) {
    slot.tried = true;
    slot.frame = build();
  }
  return slot.frame;
}

}  // namespace

void EventFrames::forget() {
  for (Slot* slot : {&sse_, &ws_[0], &ws_[1], &json_[0], &json_[1]}) *slot = Slot{};
}

const buf::FrameRef& EventFrames::sse() { return once(sse_, [this] { return build_sse(); }); }

const buf::FrameRef& EventFrames::ws_message(bool deflated) {
  return once(ws_[deflated], [this, deflated] {
    if (utf8_ < 0) utf8_ = proto::ws::is_valid_utf8(text_.data) ? 1 : 0;
    return build_ws(text_.data, utf8_ == 1, deflated);
  });
}

const buf::FrameRef& EventFrames::ws_json(bool deflated) {
  return once(json_[deflated], [this, deflated] { return build_ws(json_envelope(), true, deflated); });
}

buf::FrameRef EventFrames::build_sse() {
  buf::FrameBuilder builder(pool_, buf::Lane::data);
  const proto::sse::Event event{text_.id, text_.event, text_.data};
  if (proto::sse::encode(event, builder) != proto::sse::EncodeStatus::ok) return {};
  return builder.finish();
}

buf::FrameRef EventFrames::build_ws(std::string_view payload, bool text, bool deflated) {
  const proto::ws::Opcode op = text ? proto::ws::Opcode::text : proto::ws::Opcode::binary;
  const std::span<const char> bytes(payload.data(), payload.size());
  return deflated ? proto::ws::make_deflated_frame(pool_, buf::Lane::data, deflater_, op, bytes)
                  : proto::ws::make_message_frame(pool_, buf::Lane::data, op, bytes);
}

// {"op":"event","topic":"t","id":"E:S","event":"e","data":"..."}; data that
// is not UTF-8 cannot be a JSON string and goes as "data_b64".
std::string_view EventFrames::json_envelope() {
  scratch_.clear();
  StringSink out(scratch_);
  out.append("{\"op\":\"event\",\"topic\":");
  proto::append_json_string(out, text_.topic);
  out.append(",\"id\":");
  proto::append_json_string(out, text_.id);
  if (!text_.event.empty()) {
    out.append(",\"event\":");
    proto::append_json_string(out, text_.event);
  }
  if (utf8_ < 0) utf8_ = proto::ws::is_valid_utf8(text_.data) ? 1 : 0;
  if (utf8_ == 1) {
    out.append(",\"data\":");
    proto::append_json_string(out, text_.data);
  } else {
    out.append(",\"data_b64\":\"");
    append_base64(scratch_, text_.data);
    out.append("\"");
  }
  out.append("}");
  return scratch_;
}

}  // namespace sluice::hub
