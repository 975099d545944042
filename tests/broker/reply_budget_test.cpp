#include "broker/reply_budget.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::broker {
namespace {

struct Reader {
  explicit Reader(std::size_t max_bytes) : budget{max_bytes} {
    reader = redisReaderCreate();
    bound_replies(reader, budget);
  }
  ~Reader() { redisReaderFree(reader); }

  // REDIS_OK with the reply (or null: not whole yet), or REDIS_ERR.
  int feed(const std::string& bytes, redisReply** out) {
    redisReaderFeed(reader, bytes.data(), bytes.size());
    void* reply = nullptr;
    const int rc = redisReaderGetReply(reader, &reply);
    *out = static_cast<redisReply*>(reply);
    return rc;
  }

  ReplyBudget budget;
  redisReader* reader;
};

TEST(ReplyBudget, BuildsTheSameTreeAsHiredis) {
  Reader r(1 << 20);
  redisReply* reply = nullptr;
  ASSERT_EQ(r.feed("*3\r\n$3\r\nabc\r\n:42\r\n*2\r\n$-1\r\n+OK\r\n", &reply), REDIS_OK);
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(reply->elements, 3u);
  EXPECT_EQ(std::string(reply->element[0]->str, reply->element[0]->len), "abc");
  EXPECT_EQ(reply->element[1]->integer, 42);
  EXPECT_EQ(reply->element[2]->element[0]->type, REDIS_REPLY_NIL);
  EXPECT_EQ(std::string(reply->element[2]->element[1]->str), "OK");
  EXPECT_GT(r.budget.used, 5 * sizeof(redisReply));
  EXPECT_FALSE(r.budget.exceeded);
  freeReplyObject(reply);
}

// An array header announcing a billion elements is refused, not allocated.
TEST(ReplyBudget, RefusesAHugeArrayBeforeAllocatingIt) {
  Reader r(1 << 20);
  redisReply* reply = nullptr;
  EXPECT_EQ(r.feed("*1000000000\r\n", &reply), REDIS_ERR);
  EXPECT_EQ(reply, nullptr);
  EXPECT_TRUE(r.budget.exceeded);
}

// The budget is per answer: many small answers in a row each fit.
TEST(ReplyBudget, EachAnswerStartsAfresh) {
  Reader r(256);
  for (int i = 0; i < 100; ++i) {
    redisReply* reply = nullptr;
    ASSERT_EQ(r.feed("$10\r\n0123456789\r\n", &reply), REDIS_OK);
    ASSERT_NE(reply, nullptr);
    freeReplyObject(reply);
  }
  redisReply* reply = nullptr;
  EXPECT_EQ(r.feed("$300\r\n" + std::string(300, 'x') + "\r\n", &reply), REDIS_ERR);
  EXPECT_TRUE(r.budget.exceeded);
}

TEST(ReplyBudget, ManySmallElementsAddUp) {
  Reader r(64 * sizeof(redisReply));
  std::string many = "*100\r\n";
  for (int i = 0; i < 100; ++i) many += ":1\r\n";
  redisReply* reply = nullptr;
  EXPECT_EQ(r.feed(many, &reply), REDIS_ERR);
  EXPECT_TRUE(r.budget.exceeded);
}

TEST(ReplyBudget, BytesStillArrivingAreCheckedToo) {
  Reader r(1024);
  redisReply* reply = nullptr;
  ASSERT_EQ(r.feed("$100000\r\n" + std::string(1000, 'x'), &reply), REDIS_OK);
  EXPECT_EQ(reply, nullptr);
  EXPECT_FALSE(input_over_budget(r.reader, r.budget));
  ASSERT_EQ(r.feed(std::string(1000, 'x'), &reply), REDIS_OK);
  EXPECT_TRUE(input_over_budget(r.reader, r.budget));
  EXPECT_TRUE(r.budget.exceeded);
}

}  // namespace
}  // namespace sluice::broker
