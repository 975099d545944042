#include "port/baremetal/random_source.hpp"

#include <gtest/gtest.h>

#include <array>

#include "proto/random_bytes.hpp"
#include "proto/ws_encoder.hpp"
#include "proto/ws_handshake.hpp"

namespace sluice::port {
namespace {

// Counts up from 1: a stand-in with a recognisable output, for this test only.
bool counting_source(unsigned char* out, std::size_t n) {
  static unsigned char next = 1;
  for (std::size_t i = 0; i < n; ++i) out[i] = next++;
  return true;
}

bool failing_source(unsigned char*, std::size_t) { return false; }

TEST(RandomSource, WithoutOneEveryKeyIsRefused) {
  set_random_source(nullptr);
  std::array<unsigned char, 4> bytes{};
  EXPECT_FALSE(proto::random_bytes(bytes));
  proto::ws::MaskKey mask{};
  EXPECT_FALSE(proto::ws::make_mask_key(mask));
  char key[proto::ws::kKeySize + 1];
  EXPECT_FALSE(proto::ws::make_client_key(key));
}

TEST(RandomSource, TheInstalledSourceFillsKeys) {
  set_random_source(&counting_source);
  proto::ws::MaskKey mask{};
  ASSERT_TRUE(proto::ws::make_mask_key(mask));
  EXPECT_EQ(mask[1], mask[0] + 1);
  char key[proto::ws::kKeySize + 1];
  ASSERT_TRUE(proto::ws::make_client_key(key));
  EXPECT_EQ(std::string_view(key).size(), proto::ws::kKeySize);
  set_random_source(nullptr);
}

TEST(RandomSource, ASourceThatFailsIsNotPapered) {
  set_random_source(&failing_source);
  proto::ws::MaskKey mask{};
  EXPECT_FALSE(proto::ws::make_mask_key(mask));
  set_random_source(nullptr);
}

}  // namespace
}  // namespace sluice::port
