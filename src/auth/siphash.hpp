// Owns: SipHash-2-4 (Aumasson and Bernstein), the keyed hash that places
// client-chosen keys (addresses, token subjects, callback questions) in
// sluice's fixed-size tables. With a random key per process a client
// cannot aim many keys at one slot to push others out.
#pragma once

#include <cstdint>
#include <string_view>

namespace sluice::auth {

struct SipKey {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
};

[[nodiscard]] std::uint64_t siphash24(const SipKey& key, std::string_view data) noexcept;

// A key from the kernel's random source (getrandom).
[[nodiscard]] SipKey random_sip_key();

}  // namespace sluice::auth
