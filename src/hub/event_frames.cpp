#include "sluice/hub/event_frames.hpp"

#include "proto/ws_json_writer.hpp"
#include "sluice/hub/history.hpp"
#include "sluice/buf/string_sink.hpp"
#include "sluice/proto/utf8.hpp"
#include "sluice/proto/ws_encoder.hpp"

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

EventFrames::EventFrames(FrameTools tools, std::string_view topic, std::string_view id, const buf::FrameRef& sse,
                         const buf::FrameRef& payload, const buf::FrameRef* prebuilt)
    : tools_(tools), topic_(topic), id_(id), sse_(sse), payload_(payload) {
  if (prebuilt == nullptr) return;
  for (int deflated = 0; deflated < 2; ++deflated) {
    if (prebuilt[kWsMessage + deflated]) ws_[deflated] = {prebuilt[kWsMessage + deflated], true};
    if (prebuilt[kWsJson + deflated]) json_[deflated] = {prebuilt[kWsJson + deflated], true};
  }
}

const buf::FrameRef& EventFrames::ws_form(int form) {
  const bool deflated = (form & 1) != 0;
  return form < kWsJson ? ws_message(deflated) : ws_json(deflated);
}

void EventFrames::load_payload() {
  if (loaded_) return;
  loaded_ = true;
  std::string& bytes = tools_.payload;
  bytes.resize(payload_.size());
  payload_.copy_to(bytes.data(), bytes.size());
  const std::size_t event_length = bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]);
  const std::string_view all(bytes);
  event_ = all.substr(std::min<std::size_t>(1, all.size()), event_length);
  data_ = all.substr(std::min(all.size(), 1 + event_length));
  utf8_ = proto::ws::is_valid_utf8(data_);
}

const buf::FrameRef& EventFrames::ws_message(bool deflated) {
  return once(ws_[deflated], [this, deflated] {
    load_payload();
    return build_ws(data_, utf8_, deflated);
  });
}

const buf::FrameRef& EventFrames::ws_json(bool deflated) {
  return once(json_[deflated], [this, deflated] { return build_ws(json_envelope(), true, deflated); });
}

buf::FrameRef EventFrames::build_ws(std::string_view payload, bool text, bool deflated) {
  const proto::ws::Opcode op = text ? proto::ws::Opcode::text : proto::ws::Opcode::binary;
  const std::span<const char> bytes(payload.data(), payload.size());
  return deflated ? proto::ws::make_deflated_frame(tools_.pool, buf::Lane::data, tools_.deflater, op, bytes)
                  : proto::ws::make_message_frame(tools_.pool, buf::Lane::data, op, bytes);
}

// {"op":"event","topic":"t","id":"E:S","event":"e","data":"..."}; data that
// is not UTF-8 cannot be a JSON string and goes as "data_b64".
std::string_view EventFrames::json_envelope() {
  load_payload();
  std::string& json = tools_.json;
  json.clear();
  buf::StringSink out(json);
  (void)proto::wsjson::write_event(out, {topic_, id_, event_, data_, !utf8_});  // a StringSink never refuses
  return json;
}

}  // namespace sluice::hub
