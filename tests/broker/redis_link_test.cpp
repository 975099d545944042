#include "broker/redis_link.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "broker/commands.hpp"
#include "broker/publish_script.hpp"
#include "broker/replies.hpp"
#include "link_test_kit.hpp"
#include "redis_server.hpp"
#include "run_until.hpp"

namespace sluice::broker {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using test::resp;

struct Answer {
  std::uint64_t tag;
  Outcome outcome;
  int type = 0;
  std::string text;
  long long integer = 0;
};

struct Recorder : ReplyHandler {
  std::vector<Answer> answers;
  std::function<void(const Answer&)> then;
  void on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) override {
    Answer a{tag, outcome};
    if (reply != nullptr) {
      a.type = reply->type;
      if (reply->str != nullptr) a.text.assign(reply->str, reply->len);
      a.integer = reply->integer;
    }
    answers.push_back(a);
    if (then) then(answers.back());
  }
};

struct Events : LinkListener {
  int ups = 0;
  int downs = 0;
  std::string why;
  void link_up() override { ++ups; }
  void link_down(std::string_view w) override {
    ++downs;
    why = w;
  }
};

Endpoint local(std::uint16_t port) { return Endpoint{"127.0.0.1", port}; }

class RedisLinkTest : public testing::TestWithParam<io::BackendKind> {
 protected:
  void SetUp() override { ASSERT_TRUE(redis.ok()) << redis.error(); }

  test::RedisServer redis;
  io::Loop loop{GetParam()};
  Events events;
  Recorder recorder;
};

INSTANTIATE_TEST_SUITE_P(Backends, RedisLinkTest, testing::Values(io::BackendKind::epoll, io::BackendKind::poll),
                         [](const auto& param_info) {
                           return param_info.param == io::BackendKind::epoll ? "epoll" : "poll";
                         });

TEST_P(RedisLinkTest, ComesUpAndAnswersEveryRequestInOrder) {
  RedisLink link(loop, local(redis.port()), test::quick_link_limits(), &events);
  EXPECT_EQ(link.state(), LinkState::connecting);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  EXPECT_EQ(events.ups, 1);
  for (std::uint64_t i = 0; i < 50; ++i) {
    ASSERT_EQ(link.submit(resp({"INCR", "counter"}), recorder, i), Submit::accepted);
  }
  EXPECT_EQ(link.pending(), 50u);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 50; }));
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(recorder.answers[i].tag, i);
    EXPECT_EQ(recorder.answers[i].outcome, Outcome::reply);
    EXPECT_EQ(recorder.answers[i].integer, static_cast<long long>(i + 1));
  }
  EXPECT_EQ(link.pending(), 0u);
  EXPECT_EQ(link.pending_bytes(), 0u);
}

// The publish script numbers a stream's entries from 1 with no holes, and
// XREAD through the adapter reads them back, fields and all.
TEST_P(RedisLinkTest, PublishAndReadRoundTrip) {
  RedisLink link(loop, local(redis.port()), test::quick_link_limits(), &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  std::string command;
  write_script_load(command, kPublishScript);
  ASSERT_EQ(link.submit(command, recorder, 0), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 1; }));
  const std::string sha = recorder.answers[0].text;
  ASSERT_EQ(sha.size(), 40u);
  for (std::uint64_t i = 1; i <= 3; ++i) {
    const std::string data = "event " + std::to_string(i);
    write_publish(command, sha, "sluice:", "news", 1000, {data, i == 2 ? "price" : "", "k"});
    ASSERT_EQ(link.submit(command, recorder, i), Submit::accepted);
  }
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 4; }));
  std::vector<StreamId> ids;
  for (std::size_t i = 1; i <= 3; ++i) {
    const auto id = parse_stream_id(recorder.answers[i].text);
    ASSERT_TRUE(id.has_value()) << recorder.answers[i].text;
    ids.push_back(*id);
  }
  EXPECT_EQ(ids[0].seq, 1u);
  EXPECT_EQ(ids[1], ids[0].next());
  EXPECT_EQ(ids[2], ids[1].next());

  struct Reader : ReplyHandler {
    std::vector<TopicEntry> entries;
    std::vector<std::string> copies;
    ReplyStatus status = ReplyStatus::malformed;
    bool done = false;
    void on_reply(std::uint64_t, Outcome, const redisReply* reply) override {
      status = parse_read(reply, "sluice:", {1, 10, 16, 1 << 20}, entries).status;
      for (const TopicEntry& e : entries) {
        copies.push_back(std::string(e.topic) + "|" + std::string(e.entry.data) + "|" + std::string(e.entry.event));
      }
      done = true;
    }
  } reader;
  const ReadCursor cursor{"news", ids[0]};
  write_read(command, "sluice:", {&cursor, 1}, 10, 100);
  ASSERT_EQ(link.submit(command, reader, 0, 100ms), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return reader.done; }));
  EXPECT_EQ(reader.status, ReplyStatus::ok);
  EXPECT_EQ(reader.copies, (std::vector<std::string>{"news|event 2|price", "news|event 3|"}));
}

// A reply far larger than one read of hiredis's (16 KiB) arrives whole with
// edge-triggered readiness too: the socket is read until it is empty.
TEST_P(RedisLinkTest, ReadsALargeReplyWhole) {
  LinkLimits limits = test::quick_link_limits();
  limits.request_timeout = 20s;  // what is tested is the reading, not the time it takes under a sanitizer
  RedisLink link(loop, local(redis.port()), limits, &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  const std::string big(3 << 20, 'x');
  ASSERT_EQ(link.submit(resp({"SET", "big", big}), recorder, 1), Submit::accepted);
  ASSERT_EQ(link.submit(resp({"GET", "big"}), recorder, 2), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 2; }));
  EXPECT_EQ(recorder.answers[1].outcome, Outcome::reply);
  EXPECT_EQ(recorder.answers[1].text.size(), big.size());
  EXPECT_EQ(recorder.answers[1].text, big);
}

// Holds a loopback port bound (not listening) for as long as it lives: a
// connect to it is refused, and no other process (another test's Redis,
// started on a port it found free) can take it meanwhile.
class PortHold {
 public:
  explicit PortHold(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    held_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~PortHold() { release(); }
  PortHold(const PortHold&) = delete;
  PortHold& operator=(const PortHold&) = delete;

  [[nodiscard]] bool held() const { return held_; }
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  bool held_ = false;
};

TEST_P(RedisLinkTest, RefusesWhileNotUpAndKeepsTrying) {
  const std::uint16_t port = redis.port();
  ASSERT_TRUE(redis.kill());
  // Without the hold, a Redis another test starts meanwhile may take the
  // port, and the link comes up to it.
  PortHold hold(port);
  ASSERT_TRUE(hold.held()) << "port " << port << " was taken as soon as Redis let it go";
  RedisLink link(loop, local(port), test::quick_link_limits(), &events);
  EXPECT_EQ(link.submit(resp({"PING"}), recorder, 1), Submit::unavailable);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.failures() >= 3; })) << link.last_error();
  EXPECT_NE(link.state(), LinkState::up);
  EXPECT_EQ(link.submit(resp({"PING"}), recorder, 1), Submit::unavailable);
  EXPECT_TRUE(recorder.answers.empty());
  EXPECT_EQ(events.ups, 0);
  hold.release();
  ASSERT_TRUE(redis.restart()) << redis.error();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
}

// Redis goes away: what was pending is answered link_lost, the link backs
// off and comes back by itself when Redis does.
TEST_P(RedisLinkTest, ReconnectsWhenRedisComesBack) {
  RedisLink link(loop, local(redis.port()), test::quick_link_limits(), &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  ASSERT_EQ(link.submit(resp({"BLPOP", "nothing", "5"}), recorder, 7, 5s), Submit::accepted);
  loop.run_once(0);  // sent
  ASSERT_TRUE(redis.kill());
  ASSERT_TRUE(test::run_until(loop, [&] { return events.downs == 1; }));
  ASSERT_EQ(recorder.answers.size(), 1u);
  EXPECT_EQ(recorder.answers[0].outcome, Outcome::link_lost);
  EXPECT_EQ(link.submit(resp({"PING"}), recorder, 8), Submit::unavailable);
  const std::uint64_t failures = link.failures();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.failures() >= failures + 2; }));
  ASSERT_TRUE(redis.restart()) << redis.error();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  EXPECT_EQ(events.ups, 2);
  EXPECT_EQ(link.times_up(), 2u);
  ASSERT_EQ(link.submit(resp({"PING"}), recorder, 9), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 2; }));
  EXPECT_EQ(recorder.answers[1].text, "PONG");
}

// A stopped Redis still completes TCP handshakes; what is asked of it times
// out within a bound, the connection is dropped, and the link does not call
// itself up again until Redis answers a PING.
TEST_P(RedisLinkTest, StoppedRedisTimesRequestsOutWithinABound) {
  const LinkLimits limits = test::quick_link_limits();
  RedisLink link(loop, local(redis.port()), limits, &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  redis.pause();
  const auto start = Clock::now();
  for (std::uint64_t i = 0; i < 3; ++i) ASSERT_EQ(link.submit(resp({"PING"}), recorder, i), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 3; }));
  const auto waited = Clock::now() - start;
  for (const Answer& a : recorder.answers) EXPECT_EQ(a.outcome, Outcome::timed_out);
  EXPECT_GE(waited, limits.request_timeout);
  // The bound: the timeout plus one look of the watchdog, with room for a
  // loaded machine.
  EXPECT_LT(waited, limits.request_timeout * 10);
  EXPECT_EQ(events.downs, 1);
  EXPECT_NE(events.why.find("request_timeout"), std::string::npos) << events.why;
  // Reconnects reach the backlog but get no PONG.
  const std::uint64_t failures = link.failures();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.failures() >= failures + 2; }));
  EXPECT_EQ(events.ups, 1);
  EXPECT_NE(link.last_error().find("connect_timeout"), std::string::npos) << link.last_error();
  redis.resume();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
}

// A link with nothing to ask finds a stopped Redis by its own PING, held
// to the request timeout: a node with no traffic said it was fine for as
// long as nobody asked Redis anything.
TEST_P(RedisLinkTest, AQuietLinkFindsAStoppedRedisByItsOwnPing) {
  const LinkLimits limits = test::quick_link_limits();
  RedisLink link(loop, local(redis.port()), limits, &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  redis.pause();
  ASSERT_TRUE(test::run_until(loop, [&] { return events.downs == 1; })) << link.last_error();
  EXPECT_NE(events.why.find("request_timeout"), std::string::npos) << events.why;
  EXPECT_NE(link.state(), LinkState::up);
  redis.resume();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
}

// While Redis does not answer, at most max_pending requests (and
// max_pending_bytes) wait; the next is refused at once with `full`, and
// each accepted one is answered when its time runs out.
TEST_P(RedisLinkTest, PendingRequestsStayWithinTheirBound) {
  LinkLimits limits = test::quick_link_limits();
  limits.max_pending = 8;
  limits.max_pending_bytes = 4096;
  RedisLink link(loop, local(redis.port()), limits, &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  redis.pause();
  const std::string ping = resp({"PING"});
  for (std::uint64_t i = 0; i < 8; ++i) ASSERT_EQ(link.submit(ping, recorder, i), Submit::accepted);
  EXPECT_EQ(link.submit(ping, recorder, 8), Submit::full);
  EXPECT_EQ(link.pending(), 8u);
  EXPECT_EQ(link.pending_bytes(), 8 * ping.size());
  EXPECT_EQ(link.submit(resp({"SET", "k", std::string(4096, 'x')}), recorder, 9), Submit::too_large);
  loop.run_once(0);  // written to the stopped Redis's socket
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 8; }));
  for (const Answer& a : recorder.answers) EXPECT_EQ(a.outcome, Outcome::timed_out);
  EXPECT_EQ(link.pending(), 0u);
  EXPECT_EQ(link.pending_bytes(), 0u);
  redis.resume();
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  // The byte bound on its own.
  const std::string half = resp({"SET", "k", std::string(2000, 'x')});
  ASSERT_EQ(link.submit(half, recorder, 10), Submit::accepted);
  ASSERT_EQ(link.submit(half, recorder, 11), Submit::accepted);
  EXPECT_EQ(link.submit(half, recorder, 12), Submit::full);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 10; }));
  EXPECT_EQ(recorder.answers[9].text, "OK");
}

// A handler that finds an answer unusable resets the link from inside its
// callback: the requests behind it are answered link_lost and the link
// comes back.
TEST_P(RedisLinkTest, ResetFromInsideAHandler) {
  RedisLink link(loop, local(redis.port()), test::quick_link_limits(), &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  recorder.then = [&](const Answer& a) {
    if (a.tag == 0) link.reset("the test did not like it");
  };
  for (std::uint64_t i = 0; i < 3; ++i) ASSERT_EQ(link.submit(resp({"PING"}), recorder, i), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 3; }));
  EXPECT_EQ(recorder.answers[0].outcome, Outcome::reply);
  EXPECT_EQ(recorder.answers[1].outcome, Outcome::link_lost);
  EXPECT_EQ(recorder.answers[2].outcome, Outcome::link_lost);
  EXPECT_EQ(events.why, "the test did not like it");
  ASSERT_TRUE(test::run_until(loop, [&] { return events.ups == 2; })) << link.last_error();
  // Reset again each time it is back, as for a Redis still loading: each
  // wait is longer than the one before, not the shortest again.
  recorder.then = [&](const Answer&) { link.reset("still unusable"); };
  for (std::uint64_t i = 3; i < 5; ++i) {
    ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
    ASSERT_EQ(link.submit(resp({"PING"}), recorder, i), Submit::accepted);
    ASSERT_TRUE(test::run_until(loop, [&] { return link.state() != LinkState::up; }));
  }
  EXPECT_EQ(link.failures_in_a_row(), 3u);
}

// What one answer may cost is bounded: a long string and an array of many
// elements are both refused past max_reply_bytes, by closing the
// connection, and the link comes back.
TEST_P(RedisLinkTest, AnAnswerPastItsBudgetClosesTheConnection) {
  LinkLimits limits = test::quick_link_limits();
  limits.max_reply_bytes = 64 << 10;
  RedisLink link(loop, local(redis.port()), limits, &events);
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  ASSERT_TRUE(redis.command({"SET", "long", std::string(1 << 20, 'x')}) != nullptr);
  std::vector<std::string> push{"RPUSH", "many"};
  for (int i = 0; i < 5000; ++i) push.push_back("e");
  ASSERT_TRUE(redis.command(push) != nullptr);
  for (const auto& command : {resp({"GET", "long"}), resp({"LRANGE", "many", "0", "-1"})}) {
    recorder.answers.clear();
    ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
    ASSERT_EQ(link.submit(command, recorder, 1), Submit::accepted);
    ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 1; }));
    EXPECT_EQ(recorder.answers[0].outcome, Outcome::link_lost);
    EXPECT_TRUE(link.answer_too_large());
    EXPECT_NE(link.last_error().find("max_reply_bytes"), std::string::npos) << link.last_error();
  }
  ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
  EXPECT_FALSE(link.answer_too_large());
  // Each loss to an answer too large makes the next wait longer: coming
  // up again does not start the back-off over (the same answer would end
  // the link again at once).
  EXPECT_EQ(link.failures_in_a_row(), 2u);
  ASSERT_EQ(link.submit(resp({"LRANGE", "many", "0", "9"}), recorder, 2), Submit::accepted);
  ASSERT_TRUE(test::run_until(loop, [&] { return recorder.answers.size() == 2; }));
  EXPECT_EQ(recorder.answers[1].outcome, Outcome::reply);
}

TEST_P(RedisLinkTest, DestroyingTheLinkAnswersNobody) {
  {
    RedisLink link(loop, local(redis.port()), test::quick_link_limits(), &events);
    ASSERT_TRUE(test::run_until(loop, [&] { return link.state() == LinkState::up; })) << link.last_error();
    ASSERT_EQ(link.submit(resp({"PING"}), recorder, 1), Submit::accepted);
  }
  loop.run_once(0);
  EXPECT_TRUE(recorder.answers.empty());
  EXPECT_EQ(events.downs, 0);
}

}  // namespace
}  // namespace sluice::broker
