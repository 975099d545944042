// Three real sluiced nodes sharing their topics through a real redis-server
// (started here, on a free loopback port, with nothing saved): what one node
// publishes reaches the subscribers of the others exactly once, in order,
// under the same ids; a client resumes on another node by Last-Event-ID;
// Redis stopped (SIGSTOP) makes publishes answer 503 while subscribers keep
// their streams, and delivery catches up in order when it goes on; a node
// killed with kill -9 loses its clients nothing they cannot resume
// elsewhere.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "access_log_lines.hpp"
#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

using Clock = std::chrono::steady_clock;

TEST_F(BrokerNodes, EverySubscriberGetsEveryEventOnceInOrderWithTheSameIds) {
  SseSubscriber on_a(port_of(a_), "/sse/scores");
  SseSubscriber on_c(port_of(c_), "/sse/scores");
  ASSERT_TRUE(on_a.opened());
  ASSERT_TRUE(on_c.opened());
  ASSERT_TRUE(until_followed(*b_, "scores", {&on_a, &on_c}));

  std::vector<std::string> data, ids;
  publish_run("scores", "e", 1, 200, data, ids);
  ASSERT_TRUE(wait_events(on_a, data.size(), 10s));
  ASSERT_TRUE(wait_events(on_c, data.size(), 10s));
  expect_exactly(events_of(on_a), data, ids, "A");
  expect_exactly(events_of(on_c), data, ids, "C");
  // One id space: consecutive sequence numbers of one stream.
  for (std::size_t i = 1; i < ids.size(); ++i) {
    EXPECT_EQ(seq_of(ids[i]), seq_of(ids[i - 1]) + 1);
    EXPECT_EQ(ids[i].substr(0, ids[i].find(':')), ids[0].substr(0, ids[0].find(':')));
  }
}

TEST_F(BrokerNodes, AClientResumesOnAnotherNodeByLastEventId) {
  auto on_a = std::make_unique<SseSubscriber>(port_of(a_), "/sse/feed");
  SseSubscriber on_c(port_of(c_), "/sse/feed");
  ASSERT_TRUE(on_a->opened());
  ASSERT_TRUE(on_c.opened());
  ASSERT_TRUE(until_followed(*b_, "feed", {on_a.get(), &on_c}));

  std::vector<std::string> data, ids;
  publish_run("feed", "e", 1, 20, data, ids);
  ASSERT_TRUE(wait_events(*on_a, 20, 10s));
  const std::string last_seen = events_of(*on_a).back().id;
  on_a.reset();  // the client goes away after e20 ...
  publish_run("feed", "e", 21, 30, data, ids);
  // ... and comes back on C, which it has never used.
  SseSubscriber back(port_of(c_), "/sse/feed", 0, last_seen);
  ASSERT_TRUE(back.opened());
  publish_run("feed", "e", 31, 40, data, ids);
  ASSERT_TRUE(wait_events(back, 20, 10s));
  expect_exactly(events_of(back), std::vector<std::string>(data.begin() + 20, data.end()),
                 std::vector<std::string>(ids.begin() + 20, ids.end()), "resumed on C");
  ASSERT_TRUE(wait_events(on_c, 40, 10s));
  expect_exactly(events_of(on_c), data, ids, "C");
}

TEST_F(BrokerNodes, RedisStoppedPublishesAnswer503AndDeliveryCatchesUpInOrder) {
  SseSubscriber on_a(port_of(a_), "/sse/ticks");
  SseSubscriber on_c(port_of(c_), "/sse/ticks");
  ASSERT_TRUE(on_a.opened());
  ASSERT_TRUE(on_c.opened());
  ASSERT_TRUE(until_followed(*b_, "ticks", {&on_a, &on_c}));
  std::vector<std::string> data, ids;
  publish_run("ticks", "e", 1, 5, data, ids);

  redis_.pause();
  // The first publish may have been sent before the node saw Redis stop: it
  // is answered 504 (it may be in the stream). From then on the link is
  // down and every publish is refused at once with 503.
  std::vector<std::string> maybe;
  int refused = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string body = "stopped" + std::to_string(i);
    const auto started = Clock::now();
    const Published p = publish_on(*b_, "ticks", body);
    EXPECT_LT(Clock::now() - started, 3s) << "a publish must not wait on a stopped Redis past its timeout";
    ASSERT_TRUE(p.status == 503 || p.status == 504) << "got " << p.status;
    if (p.status == 504) maybe.push_back(body);
    if (p.status == 503) ++refused;
  }
  EXPECT_GE(refused, 6);
  // Each of the eight (503 or 504) is counted as Redis's refusal, not as a
  // loop behind on the topic.
  const std::string metrics = http_request(port_of(b_), "GET", "/metrics").body;
  EXPECT_NE(metrics.find("\nsluice_publish_refusals_total{reason=\"broker\"} 8\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nsluice_publish_refusals_total{reason=\"busy\"} 0\n"), std::string::npos) << metrics;
  redis_.resume();

  // Publishes are taken again once the link is back: each loop of B has
  // its own link and finds Redis again on its own back-off, so a publish
  // may still meet a loop that has not (503) and is tried again.
  for (int i = 6; i <= 15; ++i) {
    const std::string body = "e" + std::to_string(i);
    const auto deadline = Clock::now() + 10s;
    Published p;
    while (Clock::now() < deadline && (p = publish_on(*b_, "ticks", body)).status == 503) {
    }
    ASSERT_EQ(p.status, 200) << body;
    data.push_back(body);
    ids.push_back(p.id);
  }

  // The same streams (never closed) carry every event that was taken, in
  // order, with consecutive ids; a publish answered 504 may be among them.
  // Waited for by the last event: a 504's event may come too, so a count
  // would not say when all have.
  const auto has_last = [&](SseSubscriber& s) {
    for (const auto& e : s.events()) {
      if (e.data == data.back()) return true;
    }
    return false;
  };
  for (auto* s : {&on_a, &on_c}) {
    const auto deadline = Clock::now() + 10s;
    while (!has_last(*s) && Clock::now() < deadline) s->wait_for(s->events().size() + 1, 500ms);
    ASSERT_TRUE(has_last(*s));
    std::vector<SseSubscriber::Event> got = events_of(*s);
    std::erase_if(got, [&](const SseSubscriber::Event& e) {
      return std::find(maybe.begin(), maybe.end(), e.data) != maybe.end();
    });
    expect_exactly(got, data, ids, s == &on_a ? "A" : "C");
    const std::vector<SseSubscriber::Event> all = events_of(*s);
    for (std::size_t i = 1; i < all.size(); ++i) EXPECT_EQ(seq_of(all[i].id), seq_of(all[i - 1].id) + 1);
  }
}

// The access log's line for an HTTP/1.1 publish carries Redis's answer, as
// its reply does: with Redis stopped, a POST that waited is logged with the
// status it was answered (not 200 when it was routed), and one whose client
// reset the connection before the answer 499. A client that only ended its
// side (a FIN) is answered: the publish went to Redis, and the client must
// learn what became of it.
TEST_F(BrokerNodes, AnHttp11PublishIsLoggedWithTheStatusRedisAnswered) {
  auto node = start_node({"log.access=1", "threads=1"});
  ASSERT_NE(node->port(), 0) << node->output();
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline && publish_on(*node, "logged_up", "link up").status == 503) {
  }

  redis_.pause();
  // The request, then a reset once the node has read it (a reset that came
  // first would leave nothing to log): its one loop answers a request on a
  // later connection only after it read what came before it.
  TestClient gone(port_of(node));
  gone.send("POST /pub/logged_gone HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\ngone");
  // Answered (ok, or 503 once the node's links have found Redis stopped).
  const int health = http_request(port_of(node), "GET", "/healthz").status;
  ASSERT_TRUE(health == 200 || health == 503) << health;
  gone.reset();
  TestClient ended(port_of(node));
  ended.send("POST /pub/logged_ended HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nended");
  ended.end_sending();
  TestClient waits(port_of(node));
  waits.send("POST /pub/logged_waits HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nwaits");
  const HttpReply reply = read_reply(waits, 10s);
  ASSERT_TRUE(reply.status == 504 || reply.status == 503) << reply.head;
  const HttpReply ended_reply = read_reply(ended, 10s);
  EXPECT_TRUE(ended_reply.status == 504 || ended_reply.status == 503) << ended_reply.head;
  EXPECT_TRUE(ended.read_until_closed());
  redis_.resume();
  EXPECT_EQ(node->stop(), 0);

  const std::string log = node->output();
  // The last line for `target` (the publishes that met the link not yet
  // up were answered, and logged, 503).
  const auto line_of = [&log](const std::string& target) { return last_access_line_of_target(log, target); };
  EXPECT_NE(line_of("/pub/logged_up").find(" status=200 transport=http "), std::string::npos) << log;
  const std::string answered = " status=" + std::to_string(reply.status) + " transport=http ";
  EXPECT_NE(line_of("/pub/logged_waits").find(answered), std::string::npos) << log;
  EXPECT_NE(line_of("/pub/logged_waits").find(" body_bytes=5 "), std::string::npos) << log;
  EXPECT_NE(line_of("/pub/logged_gone").find(" status=499 transport=http "), std::string::npos) << log;
  const std::string ended_answer = " status=" + std::to_string(ended_reply.status) + " transport=http ";
  EXPECT_NE(line_of("/pub/logged_ended").find(ended_answer), std::string::npos) << log;
}

TEST_F(BrokerNodes, ANodeKilledItsClientResumesOnAnotherExactlyOnceInOrder) {
  auto on_a = std::make_unique<SseSubscriber>(port_of(a_), "/sse/orders");
  SseSubscriber on_c(port_of(c_), "/sse/orders");
  ASSERT_TRUE(on_a->opened());
  ASSERT_TRUE(on_c.opened());
  ASSERT_TRUE(until_followed(*b_, "orders", {on_a.get(), &on_c}));
  std::vector<std::string> data, ids;
  publish_run("orders", "e", 1, 10, data, ids);
  ASSERT_TRUE(wait_events(*on_a, 10, 10s));

  a_->kill();
  ASSERT_TRUE(on_a->client().read_until_closed(5s)) << "the stream ends with its node";
  std::vector<SseSubscriber::Event> seen = events_of(*on_a);
  publish_run("orders", "e", 11, 15, data, ids);
  SseSubscriber back(port_of(c_), "/sse/orders", 0, seen.back().id);
  ASSERT_TRUE(back.opened());
  publish_run("orders", "e", 16, 20, data, ids);
  ASSERT_TRUE(wait_events(back, data.size() - seen.size(), 10s));
  for (const auto& e : events_of(back)) seen.push_back(e);
  expect_exactly(seen, data, ids, "A then C");
  ASSERT_TRUE(wait_events(on_c, 20, 10s));
  expect_exactly(events_of(on_c), data, ids, "C");
}

}  // namespace
}  // namespace sluice::test
