// SseClient against sluiced in-process and against a scripted fake server:
// order, resume by Last-Event-ID, notices, and the fifo cut-off.
#include "sluice/client/sse_client.hpp"

#include <gtest/gtest.h>

#include "client_test_support.hpp"
#include "sluice/client/publisher.hpp"
#include "test_client.hpp"

namespace sluice::client::test {
namespace {

using sluice::test::RunningServer;

ClientOptions quick_retries() {
  ClientOptions options;
  options.reconnect.initial_delay = std::chrono::milliseconds(10);
  options.reconnect.max_delay = std::chrono::milliseconds(200);
  return options;
}

bool is_open(const SseClient& client) { return client.state() == ClientState::open; }

TEST(SseClient, ReceivesAThousandEventsInOrder) {
  RunningServer server;
  SseClient client;
  ASSERT_EQ(client.start(http_url(server.port(), "/sse/news")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return is_open(client); }));
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/news")).kind, ErrorKind::none);
  constexpr int kEvents = 1000;
  for (int i = 1; i <= kEvents; ++i) {
    const PublishResult r = publisher.publish("event-" + std::to_string(i));
    ASSERT_EQ(r.error.kind, ErrorKind::none) << r.error.message;
    ASSERT_EQ(r.subscribers, 1u);
    ASSERT_EQ(seq_of(r.id), static_cast<std::uint64_t>(i));
  }
  Event event;
  for (int i = 1; i <= kEvents; ++i) {
    ASSERT_EQ(client.next(event, 10s), NextStatus::event) << i;
    ASSERT_EQ(event.kind, EventKind::message);
    ASSERT_EQ(event.topic, "news");
    ASSERT_EQ(event.type, "message");
    ASSERT_EQ(event.data, "event-" + std::to_string(i));
    ASSERT_EQ(seq_of(event.id), static_cast<std::uint64_t>(i));
  }
  EXPECT_EQ(client.last_id(), event.id);
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.connects, 1u);
  EXPECT_EQ(stats.events, static_cast<std::uint64_t>(kEvents));
  EXPECT_EQ(stats.taken, static_cast<std::uint64_t>(kEvents));
  client.stop();
  EXPECT_EQ(client.state(), ClientState::stopped);
  EXPECT_EQ(client.next(event, 10s), NextStatus::ended);
}

// The limit is on the event's data: a data line is "data: " and as many
// bytes, and the id line is as long as the server's ids, so an event of
// exactly max_event_bytes arrives, as does a tiny one under a tiny limit.
TEST(SseClient, AnEventOfMaxEventBytesArrivesWithItsFieldNameAndId) {
  RunningServer server;
  for (const std::size_t limit : {std::size_t{1} << 20, std::size_t{4}}) {
    ClientOptions options;
    options.max_event_bytes = limit;
    SseClient client(options);
    ASSERT_EQ(client.start(http_url(server.port(), "/sse/whole")).kind, ErrorKind::none);
    ASSERT_TRUE(wait_until([&] { return is_open(client); }));
    Publisher publisher;
    ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/whole")).kind, ErrorKind::none);
    const std::string data(limit, 'a');
    ASSERT_EQ(publisher.publish(data).error.kind, ErrorKind::none);
    Event event;
    ASSERT_EQ(client.next(event, 10s), NextStatus::event) << client.error().message;
    EXPECT_EQ(event.data.size(), limit);
    EXPECT_EQ(client.stats().connects, 1u);
  }
}

TEST(SseClient, EventNamesAndSeveralTopics) {
  RunningServer server;
  SseClient client;
  ASSERT_EQ(client.start(http_url(server.port(), "/sse?topic=a&topic=b")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return is_open(client); }));
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/a?event=price")).kind, ErrorKind::none);
  ASSERT_EQ(publisher.publish("{\"p\":1}").error.kind, ErrorKind::none);
  ASSERT_EQ(publisher.publish_to("/pub/b", "line1\nline2").error.kind, ErrorKind::none);
  Event event;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.type, "price");
  EXPECT_EQ(event.data, "{\"p\":1}");
  EXPECT_EQ(event.topic, "");  // SSE does not say which of several topics
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.type, "message");
  EXPECT_EQ(event.data, "line1\nline2");
}

TEST(SseClient, ResumesWithLastEventIdWhenTheServerClosesTheStream) {
  FakeServer fake;
  SseClient client(quick_retries());
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/t")).kind, ErrorKind::none);
  auto first = fake.accept();
  ASSERT_TRUE(first && first->read_until("\r\n\r\n"));
  EXPECT_TRUE(first->buffer().starts_with("GET /sse/t HTTP/1.1\r\n"));
  EXPECT_NE(first->buffer().find("Accept: text/event-stream\r\n"), std::string::npos);
  EXPECT_EQ(first->buffer().find("Last-Event-ID"), std::string::npos);
  first->send(sse_head(5) + "id: 1\ndata: a\n\nid: 2\ndata: b\n\n");
  Event event;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.id, "2");
  first->close();

  auto second = fake.accept();
  ASSERT_TRUE(second && second->read_until("\r\n\r\n"));
  EXPECT_NE(second->buffer().find("\r\nLast-Event-ID: 2\r\n"), std::string::npos) << second->buffer();
  second->send(sse_head(5) + "id: 3\ndata: c\n\n");
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.id, "3");
  EXPECT_EQ(event.data, "c");
  EXPECT_EQ(client.stats().connects, 2u);
  EXPECT_EQ(client.error().kind, ErrorKind::closed);
  EXPECT_FALSE(client.error().fatal);
}

TEST(SseClient, AGivenLastIdAndAClientSideAbortBothResume) {
  FakeServer fake;
  SseClient client(quick_retries());
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/t"), "E:7").kind, ErrorKind::none);
  auto first = fake.accept();
  ASSERT_TRUE(first && first->read_until("\r\n\r\n"));
  EXPECT_NE(first->buffer().find("\r\nLast-Event-ID: E:7\r\n"), std::string::npos);
  first->send(sse_head(60000) + "id: E:8\ndata: x\n\n");
  Event event;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  client.reconnect();  // at once, despite the server's retry of a minute
  auto second = fake.accept();
  ASSERT_TRUE(second && second->read_until("\r\n\r\n"));
  EXPECT_NE(second->buffer().find("\r\nLast-Event-ID: E:8\r\n"), std::string::npos);
  EXPECT_TRUE(first->read_until_closed());
  EXPECT_EQ(client.error().kind, ErrorKind::aborted);
}

TEST(SseClient, NoticesHaveTheirOwnKinds) {
  FakeServer fake;
  SseClient client(quick_retries());
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/t")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  peer->send(sse_head(5) + "id: 1\ndata: a\n\n" +
             "event: sluice-dropped\ndata: {\"topic\":\"t\",\"dropped\":5,\"first_id\":\"2\",\"last_id\":\"6\","
             "\"policy\":\"drop-oldest\"}\n\n" +
             "event: sluice-reset\ndata: {\"topic\":\"t\",\"reason\":\"too-old\",\"last_id\":\"1\"}\n\n" +
             "id: 7\ndata: b\n\n");
  Event event;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.kind, EventKind::message);
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.kind, EventKind::dropped);
  EXPECT_EQ(event.topic, "t");
  EXPECT_EQ(event.dropped, 5u);
  EXPECT_EQ(event.id, "");
  EXPECT_NE(event.data.find("\"policy\":\"drop-oldest\""), std::string::npos);
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.kind, EventKind::reset);
  EXPECT_EQ(event.type, "sluice-reset");
  EXPECT_NE(event.data.find("too-old"), std::string::npos);
  ASSERT_EQ(client.next(event, 10s), NextStatus::event);
  EXPECT_EQ(event.id, "7");
  EXPECT_EQ(client.last_id(), "7");  // notices do not move the resume point
}

TEST(SseClient, StartRefusesWhatItCannotUse) {
  SseClient client;
  EXPECT_EQ(client.start("ws://127.0.0.1:1/sse/a").kind, ErrorKind::bad_url);
  const ClientError wss = client.start("wss://127.0.0.1/sse/a");
  EXPECT_EQ(wss.kind, ErrorKind::bad_url);
  EXPECT_TRUE(wss.fatal);
  EXPECT_NE(wss.message.find("http:// or https://"), std::string::npos);
  EXPECT_EQ(client.start("http://127.0.0.1:1/sse/a", "bad\nid").kind, ErrorKind::bad_url);
  ASSERT_EQ(client.start("http://127.0.0.1:1/sse/a").kind, ErrorKind::none);
  EXPECT_EQ(client.start("http://127.0.0.1:1/sse/a").kind, ErrorKind::resources);
}

TEST(SseClient, StopIsIdempotentAndSafeFromSeveralThreads) {
  SseClient client(quick_retries());
  ASSERT_EQ(client.start(http_url(closed_port(), "/sse/a")).kind, ErrorKind::none);
  std::thread other([&] { client.stop(); });
  client.stop();
  other.join();
  client.stop();
  EXPECT_EQ(client.state(), ClientState::stopped);
}

}  // namespace
}  // namespace sluice::client::test
