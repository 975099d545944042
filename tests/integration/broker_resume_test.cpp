// A client resumes by Last-Event-ID on a node whose own history does not
// reach back to its id, with three real sluiced nodes and a real
// redis-server: it gets exactly the events it missed, from Redis, in
// order, once, with no reset while Redis holds them; and an explicit reset
// when Redis no longer does (restarted empty), never a silent gap. Node A
// keeps a history of 4 events, so that what a client misses there is never
// all in A's memory.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker_nodes.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

class BrokerResume : public BrokerNodes {
 protected:
  void SetUp() override {
    BrokerNodes::SetUp();
    a_ = start_node({"history.max_events=4"});
    ASSERT_NE(a_->port(), 0) << a_->output();
  }

  // A subscriber on A that has read e1..e`count` of `topic`, then left:
  // the id of the last event it saw.
  std::string read_then_leave(const std::string& topic, int count, std::vector<std::string>& data,
                              std::vector<std::string>& ids) {
    SseSubscriber on_a(port_of(a_), "/sse/" + topic);
    EXPECT_TRUE(on_a.opened());
    EXPECT_TRUE(until_followed(*b_, topic, {&on_a}));
    publish_run(topic, "e", 1, count, data, ids);
    EXPECT_TRUE(wait_events(on_a, static_cast<std::size_t>(count), 10s));
    expect_exactly(events_of(on_a), data, ids, "A before leaving");
    return events_of(on_a).empty() ? std::string() : events_of(on_a).back().id;
  }

  // Every notice and event `s` got, as "TYPE DATA" lines (for messages).
  static std::string transcript(SseSubscriber& s) {
    std::string out;
    for (const auto& e : s.events()) out += e.type + " " + e.data + "\n";
    return out;
  }
};

// Expects `got` to be data[from..] with their ids, and nothing else.
void expect_tail(SseSubscriber& got, const std::vector<std::string>& data, const std::vector<std::string>& ids,
                 std::size_t from, const std::string& who) {
  expect_exactly(events_of(got), std::vector<std::string>(data.begin() + static_cast<std::ptrdiff_t>(from), data.end()),
                 std::vector<std::string>(ids.begin() + static_cast<std::ptrdiff_t>(from), ids.end()), who);
}

TEST_F(BrokerResume, OnANodeThatDoesNotReadTheTopicTheMissedEventsComeFromRedis) {
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("far", 5, data, ids);
  ASSERT_FALSE(last_seen.empty());
  // Far more than A keeps, and C has never read the topic.
  publish_run("far", "e", 6, 40, data, ids);
  SseSubscriber back(port_of(c_), "/sse/far", 0, last_seen);
  ASSERT_TRUE(back.opened());
  publish_run("far", "e", 41, 45, data, ids);
  ASSERT_TRUE(wait_events(back, 40, 10s)) << transcript(back);
  expect_tail(back, data, ids, 5, "resumed on C");
}

// Events fetched from Redis for a resuming client come in pages sized for
// Redis's answers (here four events of 20 KB), more than the stream's send
// budget (64 KiB) holds at once: the reader, reading as fast as it can,
// gets every one, in order, and is not cut off as slow.
TEST_F(BrokerResume, FetchedPagesLargerThanTheSendBudgetReachTheReaderWhole) {
  const auto d = start_node({"history.max_events=4", "send.budget_bytes=65536"});
  ASSERT_NE(d->port(), 0) << d->output();
  // Keeps D reading the topic; it reads only once the events are published.
  SseSubscriber keeper(port_of(d), "/sse/large?policy=drop-oldest");
  ASSERT_TRUE(keeper.opened());
  ASSERT_TRUE(until_followed(*b_, "large", {&keeper}));
  std::vector<std::string> data, ids;
  publish_run("large", "first ", 1, 1, data, ids);
  publish_run("large", std::string(20000, 'x') + " ", 2, 21, data, ids);
  ASSERT_TRUE(wait_data(keeper, data.back(), 10s)) << "D has read them all";

  SseSubscriber back(port_of(d), "/sse/large", 0, ids.front());
  ASSERT_TRUE(back.opened());
  ASSERT_TRUE(wait_events(back, 20, 10s)) << events_of(back).size() << " came";
  expect_tail(back, data, ids, 1, "resumed with a small budget");
}

// An id of the stream from far past its newest event, on a node that does
// not read the topic: not of this stream as it stands, so unknown-id, its
// id echoed, then what is published; no loss of events the client never
// had is told (it was told "stream-rewound", then events 1..N as dropped).
TEST_F(BrokerResume, AnIdFarPastTheStreamOnANodeThatDoesNotReadItIsUnknown) {
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("ahead", 5, data, ids);
  ASSERT_FALSE(last_seen.empty());
  const std::string far = last_seen.substr(0, last_seen.find(':') + 1) + "999999";
  SseSubscriber back(port_of(c_), "/sse/ahead", 0, far);
  ASSERT_TRUE(back.opened());
  ASSERT_TRUE(back.wait_for(1, 10s)) << transcript(back);
  EXPECT_EQ(back.events().front().type, "sluice-reset") << transcript(back);
  EXPECT_NE(back.events().front().data.find("\"reason\":\"unknown-id\""), std::string::npos) << transcript(back);
  publish_run("ahead", "e", 6, 8, data, ids);
  ASSERT_TRUE(back.wait_for(4, 10s)) << transcript(back);
  for (const auto& e : back.events()) EXPECT_NE(e.type, "sluice-dropped") << transcript(back);
  std::vector<SseSubscriber::Event> got(back.events().begin() + 1, back.events().end());
  expect_exactly(got, std::vector<std::string>(data.begin() + 5, data.end()),
                 std::vector<std::string>(ids.begin() + 5, ids.end()), "after the reset");
}

// A still reads the topic (another subscriber stays), but keeps far fewer
// events than the client missed: they come from Redis a page at a time
// (history.max_events), then the client joins A's live stream at the seam.
TEST_F(BrokerResume, OnANodeThatReadsTheTopicPastItsHistoryTheMissedEventsComeFromRedisInPages) {
  SseSubscriber keeper(port_of(a_), "/sse/near");
  ASSERT_TRUE(keeper.opened());
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("near", 5, data, ids);
  ASSERT_FALSE(last_seen.empty());
  publish_run("near", "e", 6, 150, data, ids);
  ASSERT_TRUE(wait_events(keeper, 150, 10s)) << "A has read everything";
  SseSubscriber back(port_of(a_), "/sse/near", 0, last_seen);
  ASSERT_TRUE(back.opened());
  publish_run("near", "e", 151, 160, data, ids);
  ASSERT_TRUE(wait_events(back, 155, 10s)) << transcript(back);
  expect_tail(back, data, ids, 5, "resumed on A");
}

// Subscribes over /ws with `since`, and reads the ack and `count` messages
// after it (fewer if they stop coming): each as an SSE-like event, its
// type the message's op.
std::vector<SseSubscriber::Event> ws_resume(std::uint16_t port, const std::string& topic, const std::string& since,
                                            std::size_t count) {
  ws::WsTestClient client(port);
  std::vector<SseSubscriber::Event> out;
  if (!client.open("/ws")) return out;
  client.send({.opcode = ws::kText,
               .payload = R"({"op":"subscribe","topic":")" + topic + R"(","since":")" + since + R"(","req":1})"});
  const std::optional<ws::ServerFrame> ack = client.read_message();
  if (!ack || ack->payload.find("\"ok\":true") == std::string::npos) return out;
  while (out.size() < count) {
    const std::optional<ws::ServerFrame> m = client.read_message();
    if (!m) break;
    const std::string op = field_of(m->payload, "op");
    out.push_back({field_of(m->payload, "id"), op == "event" ? "message" : op, field_of(m->payload, "data")});
  }
  return out;
}

TEST_F(BrokerResume, OverWsTheMissedEventsComeFromRedisOnANodeThatReadsTheTopicAndOnOneThatDoesNot) {
  SseSubscriber keeper(port_of(a_), "/sse/both");
  ASSERT_TRUE(keeper.opened());
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("both", 5, data, ids);
  ASSERT_FALSE(last_seen.empty());
  publish_run("both", "e", 6, 100, data, ids);
  ASSERT_TRUE(wait_events(keeper, 100, 10s)) << "A has read everything";
  const std::vector<std::string> tail(data.begin() + 5, data.end());
  const std::vector<std::string> tail_ids(ids.begin() + 5, ids.end());
  expect_exactly(ws_resume(port_of(a_), "both", last_seen, tail.size()), tail, tail_ids, "/ws on A");
  expect_exactly(ws_resume(port_of(c_), "both", last_seen, tail.size()), tail, tail_ids, "/ws on C");
}

// Clients of a node that went away land here all at once: past
// broker.max_pending requests on the connection (1 here) their pages wait
// their turn, and every one of them gets exactly what it missed.
TEST_F(BrokerResume, ManyClientsResumingAtOncePastMaxPendingEachGetTheirEvents) {
  a_ = start_node({"history.max_events=4", "threads=1", "broker.max_pending=1"});
  ASSERT_NE(a_->port(), 0) << a_->output();
  SseSubscriber keeper(port_of(a_), "/sse/storm");
  ASSERT_TRUE(keeper.opened());
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("storm", 5, data, ids);
  ASSERT_FALSE(last_seen.empty());
  publish_run("storm", "e", 6, 100, data, ids);
  ASSERT_TRUE(wait_events(keeper, 100, 10s)) << "A has read everything";
  std::vector<std::unique_ptr<SseSubscriber>> back;
  for (int i = 0; i < 4; ++i) back.push_back(std::make_unique<SseSubscriber>(port_of(a_), "/sse/storm", 0, last_seen));
  for (auto& b : back) ASSERT_TRUE(b->opened());
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_TRUE(wait_events(*back[i], 95, 10s)) << transcript(*back[i]);
    expect_tail(*back[i], data, ids, 5, "client " + std::to_string(i));
  }
}

TEST_F(BrokerResume, OnARestartedNodeTheMissedEventsComeFromRedis) {
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("again", 10, data, ids);
  ASSERT_FALSE(last_seen.empty());
  ASSERT_EQ(a_->stop(), 0);
  publish_run("again", "e", 11, 30, data, ids);
  a_ = start_node({"history.max_events=4"});
  ASSERT_NE(a_->port(), 0) << a_->output();
  SseSubscriber back(port_of(a_), "/sse/again", 0, last_seen);
  ASSERT_TRUE(back.opened());
  publish_run("again", "e", 31, 35, data, ids);
  ASSERT_TRUE(wait_events(back, 25, 10s)) << transcript(back);
  expect_tail(back, data, ids, 10, "resumed on the restarted A");
}

TEST_F(BrokerResume, RedisRestartedEmptyAResumingClientIsToldReset) {
  std::vector<std::string> data, ids;
  const std::string last_seen = read_then_leave("gone", 5, data, ids);
  ASSERT_FALSE(last_seen.empty());
  ASSERT_TRUE(redis_.restart()) << redis_.error();
  SseSubscriber back(port_of(c_), "/sse/gone", 0, last_seen);
  ASSERT_TRUE(back.opened());
  // Told at once, with nothing published since.
  ASSERT_TRUE(back.wait_for(1, 10s)) << transcript(back);
  EXPECT_EQ(back.events().front().type, "sluice-reset") << transcript(back);
  EXPECT_NE(back.events().front().data.find("\"reason\":\"stream-lost\""), std::string::npos) << transcript(back);
  // The new stream's events follow, under its ids. B's links find the new
  // Redis on their own back-off: a publish may meet one that has not (503).
  std::vector<std::string> after, after_ids;
  for (int i = 1; i <= 3; ++i) {
    const std::string body = "n" + std::to_string(i);
    const auto deadline = Clock::now() + 10s;
    Published p;
    while (Clock::now() < deadline && (p = publish_on(*b_, "gone", body)).status == 503) {
    }
    ASSERT_EQ(p.status, 200) << body;
    after.push_back(body);
    after_ids.push_back(p.id);
  }
  ASSERT_TRUE(back.wait_for(4, 10s)) << transcript(back);
  std::vector<SseSubscriber::Event> got(back.events().begin() + 1, back.events().end());
  expect_exactly(got, after, after_ids, "after the reset");
  EXPECT_NE(after_ids.front().substr(0, after_ids.front().find(':')), last_seen.substr(0, last_seen.find(':')))
      << "a new stream has a new epoch";
}

}  // namespace
}  // namespace sluice::test
