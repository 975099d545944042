#include "proto/sha1.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace sluice::proto {
namespace {

std::string hex(const Sha1Digest& digest) {
  std::string out;
  char pair[3];
  for (const unsigned char byte : digest) {
    std::snprintf(pair, sizeof pair, "%02x", byte);
    out += pair;
  }
  return out;
}

std::string sha1_hex(std::string_view text) { return hex(sha1({text.data(), text.size()})); }

TEST(Sha1, FipsExamples) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1_hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

// Lengths either side of where the padding needs a second block (56) and of
// the block size itself.
TEST(Sha1, LengthsAroundTheBlockEdges) {
  const struct {
    std::size_t length;
    const char* digest;
  } cases[] = {
      {55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"},  {56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"},
      {63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"},  {64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"},
      {65, "11655326c708d70319be2610e8a57d9a5b959d3b"},  {119, "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56"},
      {120, "f34c1488385346a55709ba056ddd08280dd4c6d6"},
  };
  for (const auto& c : cases) EXPECT_EQ(sha1_hex(std::string(c.length, 'a')), c.digest) << c.length << " bytes";
}

TEST(Sha1, EveryByteValue) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_EQ(sha1_hex(all), "4916d6bdb7f78e6803698cab32d1586ea457dfc8");
}

}  // namespace
}  // namespace sluice::proto
