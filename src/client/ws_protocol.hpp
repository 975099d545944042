// Owns: the client's requests on sluice's JSON protocol over WebSocket (the
// /ws endpoint), written as JSON text by the codec the server reads them
// with (proto/ws_json_writer.hpp), and the rule for topic names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ws_requests.hpp"

namespace sluice::client::detail {

// Appends the JSON text of `request` to `out`.
void encode_request(const WsRequest& request, std::string& out);
// {"op":"refresh","token":TOKEN,"req":REQ}: the connection's new credentials.
void encode_refresh(std::string_view token, std::uint64_t req, std::string& out);
// Appends a subscribe request; `since` and `policy` are left out when empty.
void encode_subscribe(std::string_view topic, std::string_view since, std::string_view policy, std::uint64_t req,
                      std::string& out);

// A name any server could accept: the shared alphabet, at most the ceiling
// of `topics.max_name`. A name past this server's own limit is refused by
// the server, whose answer names the limit.
[[nodiscard]] bool is_valid_topic(std::string_view topic);

}  // namespace sluice::client::detail
