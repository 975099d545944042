// SSE end to end on real sockets: publish by POST, receive on streams.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_client.hpp"

namespace sluice::test {
namespace {

// Publishes `count` events on one keep-alive connection, pipelined in
// batches, and checks every reply.
void publish_many(std::uint16_t port, std::string_view topic, int count, std::string_view prefix = "event-") {
  TestClient publisher(port);
  constexpr int kBatch = 50;
  for (int sent = 0; sent < count;) {
    std::string requests;
    const int batch = std::min(kBatch, count - sent);
    for (int i = 0; i < batch; ++i, ++sent) {
      const std::string body = std::string(prefix) + std::to_string(sent);
      requests += "POST /pub/" + std::string(topic) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                  std::to_string(body.size()) + "\r\n\r\n" + body;
    }
    publisher.send(requests);
    for (int i = 0; i < batch; ++i) ASSERT_EQ(read_reply(publisher).status, 200);
  }
}

TEST(SseStream, ThousandEventsArriveInOrderWithTheirIds) {
  RunningServer server;
  SseSubscriber sub(server.port(), "/sse/news");
  ASSERT_TRUE(sub.opened());
  publish_many(server.port(), "news", 1000);
  ASSERT_TRUE(sub.wait_for(1000));
  ASSERT_EQ(sub.events().size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(seq_of(sub.events()[i].id), static_cast<std::uint64_t>(i + 1));
    EXPECT_EQ(sub.events()[i].type, "message");
    EXPECT_EQ(sub.events()[i].data, "event-" + std::to_string(i));
  }
}

TEST(SseStream, PublishReplyCarriesTheAssignedId) {
  RunningServer server;
  EXPECT_NE(http_request(server.port(), "POST", "/pub/a", "x").body.find(":1\""), std::string::npos);
  const HttpReply second = http_request(server.port(), "POST", "/pub/a", "y");
  EXPECT_EQ(second.status, 200);
  EXPECT_NE(second.head.find("application/json"), std::string::npos);
  EXPECT_NE(second.body.find(":2\""), std::string::npos);
}

TEST(SseStream, HundredSubscribersAllReceiveEverything) {
  RunningServer server;
  std::vector<std::unique_ptr<SseSubscriber>> subs;
  for (int i = 0; i < 100; ++i) {
    subs.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/fan"));
    ASSERT_TRUE(subs.back()->opened());
  }
  publish_many(server.port(), "fan", 200);
  for (auto& sub : subs) {
    ASSERT_TRUE(sub->wait_for(200));
    EXPECT_EQ(sub->events().front().data, "event-0");
    EXPECT_EQ(seq_of(sub->events().back().id), 200u);
  }
}

TEST(SseStream, EventNameAndMultilineDataSurviveTheWire) {
  RunningServer server;
  SseSubscriber sub(server.port(), "/sse/t");
  ASSERT_TRUE(sub.opened());
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/t?event=price", "line1\nline2\r\nline3\rline4").status, 200);
  ASSERT_TRUE(sub.wait_for(1));
  EXPECT_EQ(sub.events()[0].type, "price");
  EXPECT_EQ(sub.events()[0].data, "line1\nline2\nline3\nline4");
}

TEST(SseStream, OneStreamMayFollowSeveralTopics) {
  RunningServer server;
  SseSubscriber sub(server.port(), "/sse?topic=a&topic=b");
  ASSERT_TRUE(sub.opened());
  ASSERT_EQ(http_request(server.port(), "POST", "/pub/a", "from-a").status, 200);
  ASSERT_EQ(http_request(server.port(), "POST", "/pub/c", "from-c").status, 200);
  ASSERT_EQ(http_request(server.port(), "POST", "/pub/b", "from-b").status, 200);
  ASSERT_TRUE(sub.wait_for(2));
  EXPECT_EQ(sub.events()[0].data, "from-a");
  EXPECT_EQ(sub.events()[1].data, "from-b");
}

TEST(SseStream, StalledSubscriberDoesNotHoldBackOthers) {
  server::Config config;
  config.connection.send.max_bytes = 64 * 1024;
  config.tcp_send_buffer = 8192;
  RunningServer server(config);
  SseSubscriber stalled(server.port(), "/sse/s", 4096);
  ASSERT_TRUE(stalled.opened());
  SseSubscriber fast(server.port(), "/sse/s");
  ASSERT_TRUE(fast.opened());

  // 400 events of 1 KiB: far past what the stalled reader's socket buffers
  // plus its 64 KiB budget can hold.
  const std::string payload(1024, 'p');
  TestClient publisher(server.port());
  for (int i = 0; i < 400; ++i) {
    publisher.send("POST /pub/s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1024\r\n\r\n" + payload);
    ASSERT_EQ(read_reply(publisher).status, 200);
    if (i % 50 == 0) {
      ASSERT_TRUE(fast.wait_for(static_cast<std::size_t>(i + 1)));
    }
  }
  ASSERT_TRUE(fast.wait_for(400));
  EXPECT_EQ(seq_of(fast.events().back().id), 400u);
  // The stalled one was cut off at its budget: it reads what was sent, then
  // the end of the stream, having received a prefix with no gap.
  ASSERT_TRUE(stalled.client().read_until_closed());
  stalled.wait_for(0);
  ASSERT_LT(stalled.events().size(), 400u);
  for (std::size_t i = 0; i < stalled.events().size(); ++i) {
    EXPECT_EQ(seq_of(stalled.events()[i].id), i + 1);
  }
}

TEST(SseStream, EventFarLargerThanTheSendBufferArrivesIntact) {
  server::Config config;
  config.tcp_send_buffer = 4096;
  config.http.max_body = 8 << 20;
  config.connection.receive_budget = 9 << 20;
  config.connection.memory_bytes = 16 << 20;  // the input buffer grows to hold the whole body
  RunningServer server(config);
  SseSubscriber sub(server.port(), "/sse/big");
  ASSERT_TRUE(sub.opened());
  std::string payload(4 << 20, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/big", payload).status, 200);
  ASSERT_TRUE(sub.wait_for(1, 60s));
  EXPECT_EQ(sub.events()[0].data, payload);
}

TEST(SseStream, HeartbeatCommentsKeepAnIdleStreamTalking) {
  server::Config config;
  config.heartbeat_ms = 100;
  RunningServer server(config);
  SseSubscriber sub(server.port(), "/sse/quiet");
  ASSERT_TRUE(sub.opened());
  EXPECT_TRUE(sub.client().read_until_contains(":\n\n", 5s));
}

// Subscribers on both loops: an event published on one loop may not yet
// have been handed to the other when stop() comes; it is still delivered.
TEST(SseStream, GracefulShutdownDeliversQueuedEventsThenCloses) {
  server::Config config;
  config.threads = 2;
  RunningServer server(config);
  std::vector<std::unique_ptr<SseSubscriber>> subs;
  for (int i = 0; i < 4; ++i) {
    subs.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/bye"));
    ASSERT_TRUE(subs.back()->opened());
  }
  publish_many(server.port(), "bye", 100);
  server.stop();
  for (const auto& sub : subs) {
    ASSERT_TRUE(sub->client().read_until_closed());
    sub->wait_for(0);
    EXPECT_EQ(sub->events().size(), 100u);
  }
}

}  // namespace
}  // namespace sluice::test
