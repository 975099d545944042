// POST /pub/{topic} over HTTP/2 (h2c) on a node with a broker, with three
// real sluiced nodes and a real redis-server: each stream is answered with
// the id Redis gave the event, several streams of one connection wait for
// Redis at once, and what they published reaches the other nodes'
// subscribers once each, in order, under those ids. A stream the client
// resets while Redis is stopped withdraws its wait, and the connection
// goes on, and one whose client ended its side after its publish is
// answered.
#include <nghttp2/nghttp2.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "access_log_lines.hpp"
#include "broker_nodes.hpp"
#include "h2_test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::H2TestClient;

// Publishes `body` on one stream and waits for its answer.
int h2_publish(H2TestClient& client, const std::string& topic, const std::string& body) {
  const std::int32_t stream = client.request("POST", "/pub/" + topic, {}, body);
  if (stream <= 0 || !client.pump([&] { return client.stream(stream).closed; })) return 0;
  return client.stream(stream).status;
}

// Until the node's link to Redis is up (503 before), at most 10 s.
bool until_taken(H2TestClient& client, const std::string& topic) {
  const auto deadline = BrokerClock::now() + 10s;
  int status = 0;
  while (BrokerClock::now() < deadline && (status = h2_publish(client, topic, "link up")) == 503) {
  }
  return status == 200;
}

TEST_F(BrokerNodes, PublishesOverHttp2AreAnsweredWithTheStreamsIdsAndReachEveryNodeInOrder) {
  SseSubscriber on_a(port_of(a_), "/sse/h2feed");
  SseSubscriber on_c(port_of(c_), "/sse/h2feed");
  ASSERT_TRUE(on_a.opened());
  ASSERT_TRUE(on_c.opened());
  ASSERT_TRUE(until_followed(*b_, "h2feed", {&on_a, &on_c}));

  H2TestClient client(port_of(b_));
  ASSERT_TRUE(client.ok());
  // Twenty streams sent at once: they wait for Redis together.
  std::vector<std::string> data;
  std::vector<std::int32_t> streams;
  for (int i = 1; i <= 20; ++i) {
    data.push_back("h2 " + std::to_string(i));
    streams.push_back(client.request("POST", "/pub/h2feed", {}, data.back()));
    ASSERT_GT(streams.back(), 0);
  }
  ASSERT_TRUE(client.pump([&] {
    for (const std::int32_t s : streams) {
      if (!client.stream(s).closed) return false;
    }
    return true;
  }));
  std::vector<std::string> ids;
  for (const std::int32_t s : streams) {
    ASSERT_EQ(client.stream(s).status, 200) << client.stream(s).body;
    ids.push_back(field_of(client.stream(s).body, "id"));
    ASSERT_FALSE(ids.back().empty()) << client.stream(s).body;
  }
  ASSERT_TRUE(wait_events(on_a, data.size(), 10s));
  ASSERT_TRUE(wait_events(on_c, data.size(), 10s));
  expect_exactly(events_of(on_a), data, ids, "A");
  expect_exactly(events_of(on_c), data, ids, "C");
}

TEST_F(BrokerNodes, AnHttp2PublishWaitingForRedisIsAnsweredAndOneResetByItsClientIsWithdrawn) {
  H2TestClient client(port_of(b_));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(until_taken(client, "held"));

  redis_.pause();  // the link stays up; nothing is answered
  const std::int32_t waits = client.request("POST", "/pub/held", {}, "waits");
  const std::int32_t given_up = client.request("POST", "/pub/held", {}, "given up");
  ASSERT_TRUE(client.flush());
  ASSERT_EQ(nghttp2_submit_rst_stream(client.session(), NGHTTP2_FLAG_NONE, given_up, NGHTTP2_CANCEL), 0);
  // Answered when the broker's request times out: whether the event went
  // in cannot be told.
  ASSERT_TRUE(client.pump([&] { return client.stream(waits).closed; }));
  EXPECT_EQ(client.stream(waits).status, 504) << client.stream(waits).body;
  EXPECT_EQ(client.stream(given_up).status, 0) << "a reset stream is not answered";
  redis_.resume();

  // The same connection publishes again once Redis answers.
  EXPECT_TRUE(until_taken(client, "held"));
  EXPECT_FALSE(client.goaway());
}

// A client that shuts its sending side after its publish (a FIN) is still
// answered: the event went to Redis, and the client must learn its id.
// Before, the connection closed at the FIN with the stream unanswered.
TEST_F(BrokerNodes, AnHttp2PublishWhoseClientEndedItsSideIsAnswered) {
  H2TestClient client(port_of(b_));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(until_taken(client, "ended"));

  redis_.pause();  // the answer comes only once the FIN was read with the request
  const std::int32_t stream = client.request("POST", "/pub/ended", {}, "ended");
  ASSERT_TRUE(client.flush());
  ASSERT_EQ(::shutdown(client.fd(), SHUT_WR), 0);
  redis_.resume();
  ASSERT_TRUE(client.pump([&] { return client.stream(stream).closed; }));
  EXPECT_EQ(client.stream(stream).status, 200) << client.stream(stream).body;
  EXPECT_NE(client.stream(stream).body.find(R"("id":")"), std::string::npos) << client.stream(stream).body;
}

// The access log's line for a publish over HTTP/2 carries Redis's answer,
// also for a POST whose (empty) body ended with its headers, which waits
// for Redis from the moment it is routed.
TEST_F(BrokerNodes, AnHttp2PublishIsLoggedWithTheStatusRedisAnswered) {
  auto node = start_node({"log.access=1", "threads=1"});
  ASSERT_NE(node->port(), 0) << node->output();
  H2TestClient client(port_of(node));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(until_taken(client, "logged"));
  const std::int32_t with_body = client.request("POST", "/pub/logged", {}, "some data");
  const std::int32_t empty = client.request("POST", "/pub/logged");
  ASSERT_TRUE(client.pump([&] { return client.stream(with_body).closed && client.stream(empty).closed; }));
  ASSERT_EQ(client.stream(with_body).status, 200) << client.stream(with_body).body;
  ASSERT_EQ(client.stream(empty).status, 200) << client.stream(empty).body;
  EXPECT_EQ(node->stop(), 0);
  const std::string log = node->output();
  for (const std::int32_t stream : {with_body, empty}) {
    const std::string line = access_line_of_stream(log, stream);
    EXPECT_NE(line.find("status=200"), std::string::npos) << stream << "\n" << log;
  }
}

}  // namespace
}  // namespace sluice::test
