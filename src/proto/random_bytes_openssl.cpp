// random_bytes() on a system with OpenSSL: its CSPRNG, seeded by the kernel.
#include <openssl/rand.h>

#include "proto/random_bytes.hpp"

namespace sluice::proto {

bool random_bytes(std::span<unsigned char> out) {
  return out.empty() || RAND_bytes(out.data(), static_cast<int>(out.size())) == 1;
}

}  // namespace sluice::proto
