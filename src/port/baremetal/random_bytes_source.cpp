// proto::random_bytes() on a microcontroller: the application's generator.
#include "port/baremetal/random_source.hpp"
#include "proto/random_bytes.hpp"

namespace sluice {

namespace {
port::RandomSource installed = nullptr;
}  // namespace

void port::set_random_source(RandomSource source) { installed = source; }

bool proto::random_bytes(std::span<unsigned char> out) {
  return out.empty() || (installed != nullptr && installed(out.data(), out.size()));
}

}  // namespace sluice
