#include "embedded/lwip/tcp_input.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "lwip_net.hpp"

namespace sluice::embedded::lwip {
namespace {

pbuf* chain_of(std::string_view a, std::string_view b) {
  pbuf* first = pbuf_alloc(PBUF_RAW, static_cast<u16_t>(a.size()), PBUF_RAM);
  pbuf* second = pbuf_alloc(PBUF_RAW, static_cast<u16_t>(b.size()), PBUF_RAM);
  pbuf_take(first, a.data(), static_cast<u16_t>(a.size()));
  pbuf_take(second, b.data(), static_cast<u16_t>(b.size()));
  pbuf_cat(first, second);
  return first;
}

struct TcpInputTest : testing::Test {
  test::LwipNet net;  // lwIP initialised, for its pbufs
  char buffer[8];
  TcpInput input{buffer};
};

TEST_F(TcpInputTest, TakesWhatFitsAndKeepsTheRestOfTheChain) {
  ASSERT_TRUE(input.received(chain_of("abcde", "fghijkl")));
  EXPECT_EQ(input.bytes(), "abcdefgh");
  EXPECT_EQ(input.waiting(), 4u);
  EXPECT_EQ(input.consume(3), 3u);
  EXPECT_EQ(input.bytes(), "defghijk");
  EXPECT_EQ(input.waiting(), 1u);
  EXPECT_EQ(input.consume(8), 8u);
  EXPECT_EQ(input.bytes(), "l");
  EXPECT_EQ(input.waiting(), 0u);
}

TEST_F(TcpInputTest, RefusesASecondChainWhileOneWaits) {
  ASSERT_TRUE(input.received(chain_of("0123456", "789")));
  pbuf* next = chain_of("ab", "c");
  EXPECT_FALSE(input.received(next));  // lwIP would keep it as refused data
  EXPECT_EQ(input.consume(8), 8u);
  EXPECT_EQ(input.bytes(), "89");
  EXPECT_TRUE(input.received(next));
  EXPECT_EQ(input.bytes(), "89abc");
}

TEST_F(TcpInputTest, ConsumingMoreThanThereIsTakesWhatThereIs) {
  ASSERT_TRUE(input.received(chain_of("ab", "c")));
  EXPECT_EQ(input.consume(100), 3u);
  EXPECT_TRUE(input.bytes().empty());
}

}  // namespace
}  // namespace sluice::embedded::lwip
