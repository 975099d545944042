// Owns: the WebSocket close status codes (RFC 6455 §7.4) and the rule for
// which of them may appear in a close frame on the wire.
#pragma once

#include <cstdint>

namespace sluice::proto::ws {

// A close code is 16 bits on the wire; values from 3000 to 4999 belong to
// libraries and applications, so any uint16_t may be cast to CloseCode.
enum class CloseCode : std::uint16_t {
  normal = 1000,
  going_away = 1001,
  protocol_error = 1002,
  unsupported_data = 1003,
  no_status = 1005,  // reported for an empty close frame; never sent
  abnormal = 1006,   // the connection dropped without a close frame; never sent
  invalid_payload = 1007,
  policy_violation = 1008,
  message_too_big = 1009,
  mandatory_extension = 1010,
  internal_error = 1011,
  try_again_later = 1013,  // IANA-registered: a condition of the server's that should pass
};

// True when `code` may be carried by a close frame: 1000-1003, 1007-1014
// (1012-1014 are registered with IANA after RFC 6455) and 3000-4999. A peer
// that sends any other code (1004-1006, 1015, 0-999, 5000+) is failed with
// 1002.
[[nodiscard]] constexpr bool is_valid_close_code(std::uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
         (code >= 3000 && code <= 4999);
}

[[nodiscard]] constexpr std::uint16_t to_wire(CloseCode code) { return static_cast<std::uint16_t>(code); }

}  // namespace sluice::proto::ws
