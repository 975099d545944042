// Owns: the random source a microcontroller application installs for
// proto::random_bytes() (WebSocket client keys and masking keys): its
// hardware generator, e.g. esp_fill_random() on an ESP32. Until one is
// installed, random_bytes() fails, and so does everything that needs it.
#pragma once

#include <cstddef>

namespace sluice::port {

// Fills `n` bytes at `out` with cryptographic-quality random bytes; false
// when it cannot.
using RandomSource = bool (*)(unsigned char* out, std::size_t n);

// Installs `source` (nullptr uninstalls). Call at start-up, before any
// connection; not thread-safe.
void set_random_source(RandomSource source);

}  // namespace sluice::port
