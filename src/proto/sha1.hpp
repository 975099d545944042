// Owns: sha1(), SHA-1 (FIPS 180-4) of a short byte string, for the one place
// WebSocket needs it: Sec-WebSocket-Accept (RFC 6455 §4.2.2). It is not used
// for anything that needs collision resistance. Written here rather than
// taken from OpenSSL so that the handshake builds where there is no OpenSSL
// (a microcontroller); a handshake hashes 60 bytes, so speed does not matter.
#pragma once

#include <array>
#include <cstddef>
#include <span>

namespace sluice::proto {

inline constexpr std::size_t kSha1Size = 20;
using Sha1Digest = std::array<unsigned char, kSha1Size>;

[[nodiscard]] Sha1Digest sha1(std::span<const char> bytes);

}  // namespace sluice::proto
