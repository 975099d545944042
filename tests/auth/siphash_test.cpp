#include "auth/siphash.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::auth {
namespace {

// The reference key 00 01 .. 0f and messages 00 01 .. (n-1), from the
// SipHash paper's test vectors.
const SipKey kReferenceKey{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};

std::string counting(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(i));
  return out;
}

TEST(SipHash, ReferenceVectors) {
  EXPECT_EQ(siphash24(kReferenceKey, ""), 0x726fdb47dd0e0e31ULL);
  EXPECT_EQ(siphash24(kReferenceKey, counting(15)), 0xa129ca6149be45e5ULL);  // the paper's worked example
}

TEST(SipHash, DependsOnTheKey) {
  const SipKey other{1, 2};
  EXPECT_NE(siphash24(kReferenceKey, "203.0.113.7"), siphash24(other, "203.0.113.7"));
  EXPECT_NE(random_sip_key().k0, random_sip_key().k0);
}

}  // namespace
}  // namespace sluice::auth
