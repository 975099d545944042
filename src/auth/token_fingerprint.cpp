#include "auth/token_fingerprint.hpp"

#include <atomic>

namespace sluice::auth {

namespace {

std::atomic<std::uint64_t> next_generation{1};

}  // namespace

bool same_token(const TokenFingerprint& a, const TokenFingerprint& b) noexcept {
  // Every word is looked at whatever the others hold: no early exit.
  std::uint64_t differ = (a.verifier ^ b.verifier) | (a.length ^ b.length);
  differ |= (a.digest[0] ^ b.digest[0]) | (a.digest[1] ^ b.digest[1]);
  // The empty fingerprint (no token) matches nothing, itself included.
  return (differ | static_cast<std::uint64_t>(a.verifier == 0)) == 0;
}

TokenFingerprinter::TokenFingerprinter()
    : generation_(next_generation.fetch_add(1, std::memory_order_relaxed)),
      first_(random_sip_key()),
      second_(random_sip_key()) {}

TokenFingerprint TokenFingerprinter::of(std::string_view token) const noexcept {
  return {generation_, token.size(), {siphash24(first_, token), siphash24(second_, token)}};
}

}  // namespace sluice::auth
