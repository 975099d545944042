// Owns: sluice's JSON protocol over WebSocket (the /ws endpoint) as the
// client speaks it: requests written as JSON text, and the server's
// messages (event, dropped, reset, ack) read into views.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "json_object.hpp"
#include "ws_requests.hpp"

namespace sluice::client::detail {

// Appends the JSON text of `request` to `out`.
void encode_request(const WsRequest& request, std::string& out);
// Appends a subscribe request; `since` and `policy` are left out when empty.
void encode_subscribe(std::string_view topic, std::string_view since, std::string_view policy, std::uint64_t req,
                      std::string& out);

enum class ServerOp : std::uint8_t { event, dropped, reset, ack, other };

// Views into the JsonObject given to decode_server_message(); absent fields are empty.
struct ServerMessage {
  ServerOp op = ServerOp::other;
  std::string_view topic;
  std::string_view id;
  std::string_view event;
  std::string_view data;
  std::string_view data_b64;  // event: data that is not UTF-8, in base64
  std::string_view error;
  std::uint64_t req = 0;
  std::uint64_t dropped = 0;
  bool ok = false;
};

// Reads one server message. False when `text` is not a flat JSON object
// with an "op"; an op the client does not know is ServerOp::other.
[[nodiscard]] bool decode_server_message(std::string_view text, JsonObject& json, ServerMessage& out);

// Topic names as the server accepts them: 1-128 of [A-Za-z0-9_.:-].
[[nodiscard]] bool is_valid_topic(std::string_view topic);

}  // namespace sluice::client::detail
