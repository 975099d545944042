// Owns: base64 decoding (RFC 4648 §4, padded), for event data the server
// sends as "data_b64" because it is not UTF-8 and so cannot be a JSON string.
#pragma once

#include <string>
#include <string_view>

namespace sluice::client::detail {

// Replaces `out` with the bytes `in` encodes. False for a length that is not
// a multiple of 4, a character outside the alphabet, or misplaced padding.
[[nodiscard]] bool base64_decode(std::string_view in, std::string& out);

}  // namespace sluice::client::detail
