// ClientWorkers: how the sessions are split, and K forked workers against
// real sluiced processes: each worker holds its share, takes its turn of
// the servers where the previous share left off, reads every event, and
// the parent merges one latency sample per subscriber per event; a worker
// killed before it reports is counted as lost, and its samples are missing
// from the merge rather than invented.
#include "client_workers.hpp"

#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "clock.hpp"
#include "replay_stream.hpp"
#include "sluiced_process.hpp"
#include "stamp.hpp"

namespace sluice::bench {
namespace {

constexpr std::uint64_t kWaitNs = 20 * kNsPerSec;

TEST(SplitSessions, SharesDifferByOneAndFollowEachOther) {
  const std::vector<WorkerShare> shares = split_sessions(10, 3);
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_EQ(shares[0].first, 0u);
  EXPECT_EQ(shares[0].count, 4u);
  EXPECT_EQ(shares[1].first, 4u);
  EXPECT_EQ(shares[1].count, 3u);
  EXPECT_EQ(shares[2].first, 7u);
  EXPECT_EQ(shares[2].count, 3u);
}

TEST(SplitSessions, MoreWorkersThanSessionsLeavesSomeEmpty) {
  const std::vector<WorkerShare> shares = split_sessions(2, 4);
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_EQ(shares[0].count + shares[1].count, 2u);
  EXPECT_EQ(shares[2].count + shares[3].count, 0u);
  EXPECT_EQ(split_sessions(5, 0).size(), 1u) << "no workers means one";
}

TEST(WorkersFor, AsManyAsTheLimitNeeds) {
  EXPECT_EQ(workers_for(100'000, 19'936), 6u);
  EXPECT_EQ(workers_for(19'936, 19'936), 1u);
  EXPECT_EQ(workers_for(19'937, 19'936), 2u);
  EXPECT_EQ(workers_for(0, 19'936), 1u);
  EXPECT_EQ(workers_for(10, 0), 10u) << "a limit of nothing still lets one session through each";
}

io::Endpoint endpoint_of(const test::SluicedProcess& server) { return {.host = "127.0.0.1", .port = server.port()}; }

// Polls until `done()` or the deadline; false on timeout.
template <typename Done>
bool wait_for(Done done) {
  const std::uint64_t deadline = now_ns() + kWaitNs;
  while (!done()) {
    if (now_ns() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

void publish(const test::SluicedProcess& server, const std::string& topic) {
  const PublishAnswer answer = publish_one(endpoint_of(server), topic, make_payload(64, now_ns()), now_ns() + kWaitNs);
  ASSERT_EQ(answer.status, 200) << answer.error << answer.body;
}

TEST(ClientWorkers, EachWorkerTakesItsTurnOfTheServersAndEveryEventIsMerged) {
  test::SluicedProcess a({}), b({});
  ASSERT_NE(a.port(), 0);
  ASSERT_NE(b.port(), 0);
  // 9 sessions over 3 workers ([0,3), [3,6), [6,9)), session i on server
  // i mod 2: a holds 0, 2, 4, 6, 8, that is 2, 1 and 2 of the workers'.
  // A worker that restarted the turn at its own first session would put
  // 2 of its 3 on a, 6 in all.
  ClientWorkers clients({.session = {.path = "/ws/split", .proto = Proto::ws}, .sessions = 9, .sources = 2,
                         .servers = {endpoint_of(a), endpoint_of(b)}},
                        3);
  ASSERT_EQ(clients.start(), "");
  ASSERT_EQ(clients.pids().size(), 3u);
  ASSERT_TRUE(clients.wait_ready(now_ns() + kWaitNs));
  EXPECT_EQ(clients.of(0, &StreamCounters::ready), 3u);
  EXPECT_EQ(clients.of(1, &StreamCounters::ready), 3u);
  EXPECT_EQ(clients.of(2, &StreamCounters::ready), 3u);

  publish(a, "split");
  ASSERT_TRUE(wait_for([&] { return clients.total(&StreamCounters::events) >= 5; }));
  EXPECT_EQ(clients.total(&StreamCounters::events), 5u);
  EXPECT_EQ(clients.of(0, &StreamCounters::events), 2u);
  EXPECT_EQ(clients.of(1, &StreamCounters::events), 1u);
  EXPECT_EQ(clients.of(2, &StreamCounters::events), 2u);

  publish(b, "split");
  ASSERT_TRUE(wait_for([&] { return clients.total(&StreamCounters::events) >= 9; }));
  clients.stop();
  EXPECT_EQ(clients.lost(), 0u);
  EXPECT_EQ(clients.latency().count(), 9u) << "one sample per subscriber, from every worker";
  EXPECT_EQ(clients.total(&StreamCounters::gaps), 0u);
  EXPECT_EQ(clients.total(&StreamCounters::failed), 0u);
}

TEST(ClientWorkers, LatencyBeforeTheMarkIsNotRecorded) {
  test::SluicedProcess server({});
  ASSERT_NE(server.port(), 0);
  ClientWorkers clients({.session = {.server = endpoint_of(server), .path = "/ws/mark", .proto = Proto::ws},
                         .sessions = 6},
                        2);
  ASSERT_EQ(clients.start(), "");
  ASSERT_TRUE(clients.wait_ready(now_ns() + kWaitNs));
  ASSERT_TRUE(clients.record_latency_from(UINT64_MAX)) << "every worker took the mark before the publish";
  publish(server, "mark");
  ASSERT_TRUE(wait_for([&] { return clients.total(&StreamCounters::events) >= 6; }));
  ASSERT_TRUE(clients.record_latency_from(now_ns()));
  publish(server, "mark");
  ASSERT_TRUE(wait_for([&] { return clients.total(&StreamCounters::events) >= 12; }));
  clients.stop();
  EXPECT_EQ(clients.latency().count(), 6u) << "the second event only";
}

TEST(ClientWorkers, AWorkerKilledBeforeItReportsIsCountedLost) {
  test::SluicedProcess server({});
  ASSERT_NE(server.port(), 0);
  ClientWorkers clients({.session = {.server = endpoint_of(server), .path = "/ws/lost", .proto = Proto::ws},
                         .sessions = 10},
                        2);
  ASSERT_EQ(clients.start(), "");
  ASSERT_TRUE(clients.wait_ready(now_ns() + kWaitNs));
  publish(server, "lost");
  ASSERT_TRUE(wait_for([&] { return clients.total(&StreamCounters::events) >= 10; }));
  ASSERT_EQ(::kill(clients.pids()[1], SIGKILL), 0);
  clients.stop();
  EXPECT_EQ(clients.lost(), 1u);
  EXPECT_EQ(clients.latency().count(), 5u) << "the first worker's samples only";
}

}  // namespace
}  // namespace sluice::bench
