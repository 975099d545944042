// Owns: random_bytes(), the random source behind WebSocket client keys and
// masking keys. Predictable masking keys let a script poison proxy caches
// (RFC 6455 §10.3), so only a cryptographic generator will do: OpenSSL's on
// Linux (random_bytes_openssl.cpp). A microcontroller build uses the one its
// application installs (see port/baremetal/random_source.hpp), and with none
// installed every call fails: nothing weaker is ever used in its place.
#pragma once

#include <span>

namespace sluice::proto {

// Fills `out`; false when no strong random source could.
[[nodiscard]] bool random_bytes(std::span<unsigned char> out);

}  // namespace sluice::proto
