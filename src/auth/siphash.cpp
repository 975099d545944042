#include "auth/siphash.hpp"

#include <sys/random.h>

#include <bit>
#include <cstring>
#include <stdexcept>

namespace sluice::auth {

namespace {

struct State {
  std::uint64_t v0, v1, v2, v3;

  void round() {
    v0 += v1;
    v1 = std::rotl(v1, 13);
    v1 ^= v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = std::rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = std::rotl(v1, 17);
    v1 ^= v2;
    v2 = std::rotl(v2, 32);
  }

  void absorb(std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

std::uint64_t load_le(const char* p, std::size_t n) {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < n; ++i) m |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return m;
}

}  // namespace

std::uint64_t siphash24(const SipKey& key, std::string_view data) noexcept {
  State s{key.k0 ^ 0x736f6d6570736575ULL, key.k1 ^ 0x646f72616e646f6dULL, key.k0 ^ 0x6c7967656e657261ULL,
          key.k1 ^ 0x7465646279746573ULL};
  const std::size_t whole = data.size() / 8 * 8;
  for (std::size_t i = 0; i < whole; i += 8) s.absorb(load_le(data.data() + i, 8));
  s.absorb(load_le(data.data() + whole, data.size() - whole) | (std::uint64_t{data.size() & 0xff} << 56));
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

SipKey random_sip_key() {
  SipKey key;
  std::uint64_t words[2];
  if (getrandom(words, sizeof words, 0) != static_cast<ssize_t>(sizeof words)) {
    throw std::runtime_error("getrandom failed: no key for the rate and cache tables");
  }
  key.k0 = words[0];
  key.k1 = words[1];
  return key;
}

}  // namespace sluice::auth
