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
  buf::ChargedBuffer joined(nullptr);
  EXPECT_EQ(body.view(joined).bytes, "hello, world");
  EXPECT_EQ(joined.capacity(), 0u);  // not copied
  EXPECT_EQ(body.size(), 12u);
  EXPECT_EQ(pool.free_blocks(), 5u);
  body.clear();
  EXPECT_EQ(pool.free_blocks(), 6u);
  EXPECT_EQ(body.view(joined).bytes, "");
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
  buf::ChargedBuffer joined(nullptr);
  EXPECT_EQ(body.view(joined).bytes, sent);
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

// Joining a body past the buffer's resting size is charged first: refused
// past the account, and given back by a trim.
TEST(H2Body, AJoinedBodyIsChargedAndRefusedPastTheAccount) {
  buf::Pool pool({.block_count = 16, .block_size = 4096, .reserve = 2, .prefault = false});
  H2Body body(pool);
  ASSERT_TRUE(body.append(std::string(40 << 10, 'x')));
  buf::MemoryAccount small(nullptr, 8 << 10);
  buf::ChargedBuffer refused(&small);
  EXPECT_EQ(body.view(refused).growth, buf::Growth::over_connection);
  EXPECT_EQ(small.charged(), 0u);
  buf::MemoryAccount enough(nullptr, 64 << 10);
  buf::ChargedBuffer joined(&enough);
  const JoinedBody whole = body.view(joined);
  ASSERT_EQ(whole.growth, buf::Growth::ok);
  EXPECT_EQ(whole.bytes, std::string(40 << 10, 'x'));
  EXPECT_EQ(enough.charged(), (40u << 10) - buf::kRestingCapacity);
  joined.trim();
  EXPECT_EQ(enough.charged(), 0u);
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
