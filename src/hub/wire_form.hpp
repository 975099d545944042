// Owns: WireForm, the forms in which an event goes out on the wire. The
// publisher builds each form some subscriber of the topic takes (counted
// per form at subscribe time), so that a pool too full for them refuses
// the publish instead of losing the event later, and no event costs a form
// nobody reads; a form nobody took then is built by a loop on first use.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::hub {

enum class WireForm : std::uint8_t {
  sse,                   // the Server-Sent Events record
  ws_message,            // one WebSocket message holding the data
  ws_message_deflated,   // the same, permessage-deflate
  ws_envelope,           // the /ws JSON envelope {"op":"event",...} as one message
  ws_envelope_deflated,  // the same, permessage-deflate
};

// The WebSocket forms, kept with an event once built.
inline constexpr std::size_t kWsForms = 4;

// A WebSocket form's index among the kWsForms (form != sse).
[[nodiscard]] constexpr std::size_t ws_index(WireForm form) { return static_cast<std::size_t>(form) - 1; }
[[nodiscard]] constexpr WireForm ws_form_at(std::size_t index) { return static_cast<WireForm>(index + 1); }

[[nodiscard]] constexpr WireForm ws_message_form(bool deflated) {
  return deflated ? WireForm::ws_message_deflated : WireForm::ws_message;
}
[[nodiscard]] constexpr WireForm ws_envelope_form(bool deflated) {
  return deflated ? WireForm::ws_envelope_deflated : WireForm::ws_envelope;
}

}  // namespace sluice::hub
