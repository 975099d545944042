#include "session/h2_body.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::session {
namespace {

TEST(H2Body, ABodyInOneBlockIsViewedWhereItLies) {
  buf::Pool pool({.block_count = 6, .block_size = 64, .reserve = 2, .prefault = false});
  H2Body body(pool);
  ASSERT_EQ(body.append("hello, "), BodyGrowth::ok);
  ASSERT_EQ(body.append("world"), BodyGrowth::ok);
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
    ASSERT_EQ(body.append(piece), BodyGrowth::ok);
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
  EXPECT_EQ(body.append(std::string(5 * 64, 'x')), BodyGrowth::pool_short);
  EXPECT_EQ(pool.free_blocks(), 2u);
  body.clear();
  EXPECT_EQ(pool.free_blocks(), 6u);
}

// Joining a body past the buffer's resting size is charged first: refused
// past the account, and given back by a trim.
TEST(H2Body, AJoinedBodyIsChargedAndRefusedPastTheAccount) {
  buf::Pool pool({.block_count = 16, .block_size = 4096, .reserve = 2, .prefault = false});
  H2Body body(pool);
  ASSERT_EQ(body.append(std::string(40 << 10, 'x')), BodyGrowth::ok);
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

// Bodies hold whole blocks, and no more of them all together than their
// share: one past it is refused with the pool still free, and each body
// gives its blocks back to the share as to the pool.
TEST(H2Body, BodiesHoldNoMoreThanTheirShareOfThePool) {
  buf::Pool pool({.block_count = 16, .block_size = 64, .reserve = 2, .prefault = false});
  buf::BlockShare share(3);
  H2Body first(pool, &share);
  H2Body second(pool, &share);
  EXPECT_EQ(first.growth_for(1), 64u);
  ASSERT_EQ(first.append("x"), BodyGrowth::ok);
  EXPECT_EQ(first.held_bytes(), 64u);
  EXPECT_EQ(first.growth_for(63), 0u);
  EXPECT_EQ(first.growth_for(64), 64u);
  ASSERT_EQ(second.append(std::string(100, 'y')), BodyGrowth::ok);
  EXPECT_EQ(share.held(), 3u);
  EXPECT_EQ(first.append(std::string(64, 'x')), BodyGrowth::share_full);
  EXPECT_EQ(first.size(), 64u) << "what fitted its block stays";
  EXPECT_EQ(pool.free_blocks(), 13u);
  second.clear();
  EXPECT_EQ(share.held(), 1u);
  EXPECT_EQ(first.append(std::string(64, 'x')), BodyGrowth::ok);
  EXPECT_EQ(share.held(), 2u);
}

TEST(H2Body, DestroyingABodyGivesItsBlocksBack) {
  buf::Pool pool({.block_count = 6, .block_size = 64, .reserve = 2, .prefault = false});
  {
    H2Body body(pool);
    ASSERT_EQ(body.append(std::string(100, 'x')), BodyGrowth::ok);
  }
  EXPECT_EQ(pool.free_blocks(), 6u);
}

}  // namespace
}  // namespace sluice::session
