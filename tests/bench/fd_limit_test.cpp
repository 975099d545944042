#include "fd_limit.hpp"

#include <sys/resource.h>

#include <gtest/gtest.h>

namespace sluice::bench {
namespace {

TEST(FdLimit, RaisesTheSoftLimitAsFarAsTheHardOne) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  const FdLimit small = raise_fd_limit(16);
  EXPECT_TRUE(small.enough);
  EXPECT_GE(small.soft, before.rlim_cur) << "never lowered";

  const FdLimit huge = raise_fd_limit(small.hard + 1);
  EXPECT_FALSE(huge.enough);
  EXPECT_EQ(huge.soft, huge.hard);
  const std::string line = describe_fd_shortage(huge, huge.hard + 1);
  EXPECT_NE(line.find("hard limit " + std::to_string(huge.hard)), std::string::npos) << line;
  ::setrlimit(RLIMIT_NOFILE, &before);
}

}  // namespace
}  // namespace sluice::bench
