// Owns: base64url (RFC 4648 §5, no padding), the encoding of the three
// parts of a JSON Web Token and of the numbers and keys in a JWKS file.
// In the core so that the server's token checks and the client's reading
// of its own token's expiry decode with one strict decoder.
#pragma once

#include <string>
#include <string_view>

namespace sluice::proto {

// Replaces `out` with the bytes `in` encodes. Strict: false for a character
// outside [A-Za-z0-9_-] (padding '=' included, which JWTs never carry), a
// length of 1 mod 4 (no byte ends there), or unused low bits that are not
// zero, so that each byte string has exactly one accepted spelling.
[[nodiscard]] bool base64url_decode(std::string_view in, std::string& out);

// Appends the unpadded base64url form of `bytes` to `out`.
void base64url_append(std::string_view bytes, std::string& out);

}  // namespace sluice::proto
