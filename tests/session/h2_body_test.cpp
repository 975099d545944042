#include "session/h2_body.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::session {
namespace {

TEST(H2Body, ABodyInOneBlockIsViewedWhereItLies) {
  buf::Pool pool({.block_count = 6, .block_size = 64, .reserve = 2, .prefault = false});
  H2Body body(pool);
  ASSERT_TRUE(body.append("hello, "));
  ASSERT_TRUE(body.append("world"));
  std::string joined;
  EXPECT_EQ(body.view(joined), "hello, world");
  EXPECT_TRUE(joined.empty());  // not copied
  EXPECT_EQ(body.size(), 12u);
  EXPECT_EQ(pool.free_blocks(), 5u);
  body.clear();
  EXPECT_EQ(pool.free_blocks(), 6u);
  EXPECT_EQ(body.view(joined), "");
}

TEST(H2Body, ABodyOverManyBlocksIsJoinedInOrder) {
  buf::Pool pool({.block_count = 6, .block_size = 64, .reserve = 2, .prefault = false});
  H2Body body(pool);
  std::string sent;
  for (int i = 0; i < 10; ++i) {
    const std::string piece(17, static_cast<char>('a' + i));
    ASSERT_TRUE(body.append(piece));
    sent += piece;
  }
  std::string joined;
  EXPECT_EQ(body.view(joined), sent);
  EXPECT_EQ(pool.free_blocks(), 3u);  // 170 bytes: three blocks of 64
}

// The pool's data lane stops short of its reserve: a body it cannot hold
// is refused, and clearing it gives back what it had.
TEST(H2Body, ABodyThePoolCannotHoldIsRefused) {
  buf::Pool pool({.block_count = 6, .block_size = 64, .reserve = 2, .prefault = false});
  H2Body body(pool);
  EXPECT_FALSE(body.append(std::string(5 * 64, 'x')));
  EXPECT_EQ(pool.free_blocks(), 2u);
  body.clear();
  EXPECT_EQ(pool.free_blocks(), 6u);
}

TEST(H2Body, DestroyingABodyGivesItsBlocksBack) {
  buf::Pool pool({.block_count = 6, .block_size = 64, .reserve = 2, .prefault = false});
  {
    H2Body body(pool);
    ASSERT_TRUE(body.append(std::string(100, 'x')));
  }
  EXPECT_EQ(pool.free_blocks(), 6u);
}

}  // namespace
}  // namespace sluice::session
