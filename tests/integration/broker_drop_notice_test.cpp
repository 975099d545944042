// A subscriber that loses events under drop-oldest on a node with a broker
// is told which, by the ids it would resume with: ids of the topic's Redis
// Stream (the same on every node), not of the node's own run. Two real
// sluiced nodes and a real redis-server: the stalled reader is on A, the
// publisher on B.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

constexpr int kDropNoticeEvents = 200;

std::string epoch_of_stream_id(const std::string& id) { return id.substr(0, id.find(':')); }

struct Tally {
  std::uint64_t received = 0;  // events
  std::uint64_t reported = 0;  // events the notices say were dropped
  std::vector<const SseSubscriber::Event*> notices;
};

Tally tally(const std::vector<SseSubscriber::Event>& events) {
  Tally t;
  for (const auto& e : events) {
    if (e.type != "sluice-dropped") {
      ++t.received;
      continue;
    }
    t.notices.push_back(&e);
    const std::size_t at = e.data.find("\"dropped\":");
    if (at != std::string::npos) t.reported += std::stoull(e.data.substr(at + 10));
  }
  return t;
}

TEST(BrokerDropNotice, NamesTheLostEventsByTheirStreamIds) {
  RedisServer redis;
  ASSERT_TRUE(redis.ok()) << redis.error();
  // A's sockets and send budget are small, so that a reader who does not
  // read loses events; one loop, so that what it holds follows from what
  // was published.
  std::vector<std::string> small = node_settings(redis);
  small.insert(small.end(), {"threads=1", "tcp.send_buffer=4096", "tcp.notsent_lowat=1024", "send.budget_bytes=16384"});
  SluicedProcess a(small);
  SluicedProcess b(node_settings(redis));
  ASSERT_NE(a.port(), 0) << a.output();
  ASSERT_NE(b.port(), 0) << b.output();
  SseSubscriber stalled(static_cast<std::uint16_t>(a.port()), "/sse/t?policy=drop-oldest", 4096);
  ASSERT_TRUE(stalled.opened());
  SseSubscriber fast(static_cast<std::uint16_t>(a.port()), "/sse/t");
  ASSERT_TRUE(fast.opened());

  std::vector<std::string> ids;
  const auto deadline = BrokerClock::now() + 30s;
  while (static_cast<int>(ids.size()) < kDropNoticeEvents && BrokerClock::now() < deadline) {
    const Published p = publish_on(b, "t", std::string(512, 'd'));
    if (p.status == 503) continue;  // B's link to Redis not up yet
    ASSERT_EQ(p.status, 200);
    ids.push_back(p.id);
    if (ids.size() % 10 == 0) {
      ASSERT_TRUE(wait_events(fast, ids.size(), 10s));  // the fast reader keeps up
    }
  }
  ASSERT_EQ(static_cast<int>(ids.size()), kDropNoticeEvents);

  // drop-oldest keeps the newest: the last event reaches the stalled
  // reader, and every one before it either came or was told of.
  ASSERT_TRUE(stalled.client().read_until(
      [&](const std::string&) {
        stalled.parse_buffered();
        const Tally t = tally(stalled.events());
        return !stalled.events().empty() && stalled.events().back().id == ids.back() &&
               t.received + t.reported >= static_cast<std::uint64_t>(kDropNoticeEvents);
      },
      20s));
  const Tally t = tally(stalled.events());
  EXPECT_EQ(t.received + t.reported, static_cast<std::uint64_t>(kDropNoticeEvents));
  ASSERT_FALSE(t.notices.empty());
  for (const auto* notice : t.notices) {
    const std::string first = field_of(notice->data, "first_id");
    const std::string last = field_of(notice->data, "last_id");
    // The ids of events published on B: of the stream, as every node writes them.
    EXPECT_EQ(epoch_of_stream_id(first), epoch_of_stream_id(ids.front())) << notice->data;
    EXPECT_NE(std::find(ids.begin(), ids.end(), first), ids.end()) << notice->data;
    EXPECT_NE(std::find(ids.begin(), ids.end(), last), ids.end()) << notice->data;
    EXPECT_LE(seq_of(first), seq_of(last)) << notice->data;
  }
  for (const auto& e : stalled.events()) {
    if (e.type != "sluice-dropped") {
      EXPECT_NE(std::find(ids.begin(), ids.end(), e.id), ids.end()) << e.id;
    }
  }
}

}  // namespace
}  // namespace sluice::test
