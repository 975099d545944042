#include "broker/hiredis_loop.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "broker/commands.hpp"
#include "redis_server.hpp"
#include "run_until.hpp"

namespace sluice::broker {
namespace {

// The process's count of write(2)-like calls, from /proc/self/io.
std::uint64_t write_calls() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "syscw:") return value;
  }
  return 0;
}

// A bare hiredis context on the loop, without RedisLink around it.
struct Bare : HiredisLoop::Owner {
  explicit Bare(io::Loop& loop) : events(loop, *this) {}
  void context_released() override { released = true; }
  void input_over_budget() override { over_budget = true; }

  HiredisLoop events;
  ReplyBudget budget;
  bool released = false;
  bool over_budget = false;
};

struct Counter {
  int replies = 0;
  static void on_reply(redisAsyncContext*, void* reply, void* self) {
    if (reply != nullptr) ++static_cast<Counter*>(self)->replies;
  }
};

class HiredisLoopTest : public testing::TestWithParam<io::BackendKind> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis.ok()) << redis.error();
    context = redisAsyncConnect("127.0.0.1", redis.port());
    ASSERT_TRUE(context != nullptr && context->err == 0);
    ASSERT_EQ(bare.events.attach(context, bare.budget), 0);
    redisAsyncSetConnectCallback(context, [](const redisAsyncContext*, int) {});
  }
  void TearDown() override {
    if (!bare.released && context != nullptr) redisAsyncFree(context);
  }

  test::RedisServer redis;
  io::Loop loop{GetParam()};
  Bare bare{loop};
  redisAsyncContext* context = nullptr;
  Counter counter;
};

INSTANTIATE_TEST_SUITE_P(Backends, HiredisLoopTest, testing::Values(io::BackendKind::epoll, io::BackendKind::poll),
                         [](const auto& param_info) {
                           return param_info.param == io::BackendKind::epoll ? "epoll" : "poll";
                         });

// Every command issued during one tick leaves in one write at its end.
TEST_P(HiredisLoopTest, ATicksCommandsLeaveInOneWrite) {
  std::string ping;
  write_ping(ping);
  ASSERT_EQ(redisAsyncFormattedCommand(context, Counter::on_reply, &counter, ping.data(), ping.size()), REDIS_OK);
  ASSERT_TRUE(test::run_until(loop, [&] { return counter.replies == 1; }));
  const std::uint64_t before = write_calls();
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(redisAsyncFormattedCommand(context, Counter::on_reply, &counter, ping.data(), ping.size()), REDIS_OK);
  }
  EXPECT_EQ(write_calls(), before);  // nothing written yet: the tick has not ended
  loop.run_once(0);
  EXPECT_EQ(write_calls(), before + 1);
  ASSERT_TRUE(test::run_until(loop, [&] { return counter.replies == 101; }));
}

// The peer closing the connection is seen, and hiredis lets go of the
// context (answering what was pending with no reply).
TEST_P(HiredisLoopTest, ThePeersCloseReleasesTheContext) {
  std::string ping;
  write_ping(ping);
  ASSERT_EQ(redisAsyncFormattedCommand(context, Counter::on_reply, &counter, ping.data(), ping.size()), REDIS_OK);
  ASSERT_TRUE(test::run_until(loop, [&] { return counter.replies == 1; }));
  ASSERT_TRUE(redis.kill());
  ASSERT_TRUE(test::run_until(loop, [&] { return bare.released; }));
  EXPECT_FALSE(bare.events.attached());
}

// A bulk string announced larger than the budget is caught while its bytes
// are still arriving, before it is whole.
TEST_P(HiredisLoopTest, AnAnswerArrivingPastTheBudgetIsCaughtEarly) {
  bare.budget.max_bytes = 64 << 10;
  ASSERT_TRUE(redis.command({"SET", "long", std::string(4 << 20, 'x')}) != nullptr);
  std::string ping;
  write_ping(ping);  // answered first: the connection is up
  ASSERT_EQ(redisAsyncFormattedCommand(context, Counter::on_reply, &counter, ping.data(), ping.size()), REDIS_OK);
  ASSERT_TRUE(test::run_until(loop, [&] { return counter.replies == 1; }));
  const std::string command = "*2\r\n$3\r\nGET\r\n$4\r\nlong\r\n";
  ASSERT_EQ(redisAsyncFormattedCommand(context, Counter::on_reply, &counter, command.data(), command.size()),
            REDIS_OK);
  ASSERT_TRUE(test::run_until(loop, [&] { return bare.over_budget; }));
  EXPECT_TRUE(bare.budget.exceeded);
  EXPECT_EQ(counter.replies, 1);
}

}  // namespace
}  // namespace sluice::broker
