// Owns: ServerMessages, how the client reads what the server sends in JSON
// (the /ws protocol's events, acks and notices; a notice's data on SSE and
// on /ws/{topic}) through the codec the server writes them with
// (proto/ws_json.hpp). Decoded strings go into one buffer that grows to
// the largest message seen and is reused, so reading allocates nothing
// once it has grown.
#pragma once

#include <string_view>
#include <vector>

#include "proto/ws_json.hpp"

namespace sluice::client::detail {

class ServerMessages {
 public:
  // The views in `out` live until the next read().
  [[nodiscard]] proto::wsjson::ReadResult read(std::string_view text, proto::wsjson::Style style,
                                               proto::wsjson::ServerMessage& out);

 private:
  std::vector<char> scratch_;
};

}  // namespace sluice::client::detail
