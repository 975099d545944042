#include "buf/fixed_sink.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace sluice::buf {
namespace {

TEST(FixedSink, TakesWhatFitsThenFailsForGood) {
  char buffer[8];
  FixedSink sink(buffer, sizeof buffer);
  EXPECT_TRUE(sink.append("abc"));
  EXPECT_TRUE(sink.append(std::string_view()));  // an empty view, whose data is null
  EXPECT_TRUE(sink.append("defgh"));
  EXPECT_EQ(sink.text(), "abcdefgh");
  EXPECT_FALSE(sink.failed());
  EXPECT_FALSE(sink.append("i"));
  EXPECT_TRUE(sink.failed());
  EXPECT_FALSE(sink.append(""));
  EXPECT_EQ(sink.text(), "abcdefgh");
}

}  // namespace
}  // namespace sluice::buf
