#include "sluice/client/publisher.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "client_test_support.hpp"
#include "test_client.hpp"

namespace sluice::client::test {
namespace {

using sluice::test::RunningServer;

std::string ok_reply() {
  const std::string body = "{\"topic\":\"t\",\"id\":\"E:1\",\"subscribers\":0}\n";
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: keep-alive\r\n\r\n" + body;
}

TEST(Publisher, PublishesOnOneConnectionAndReportsIds) {
  RunningServer server;
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/p?event=tick")).kind, ErrorKind::none);
  for (std::uint64_t i = 1; i <= 3; ++i) {
    const PublishResult r = publisher.publish("x");
    ASSERT_EQ(r.error.kind, ErrorKind::none) << r.error.message;
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(seq_of(r.id), i);
    EXPECT_EQ(r.subscribers, 0u);
  }
  EXPECT_EQ(seq_of(publisher.publish_to("/pub/other", "y").id), 1u);
}

TEST(Publisher, ARefusalCarriesTheStatusAndTheServersReason) {
  RunningServer server;
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(server.port(), "/pub/bad%20topic")).kind, ErrorKind::none);
  const PublishResult r = publisher.publish("x");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.error.kind, ErrorKind::http_status);
  EXPECT_NE(r.error.message.find("bad topic name"), std::string::npos) << r.error.message;
  EXPECT_EQ(publisher.publish_to("/pub/fine", "x").error.kind, ErrorKind::none);  // the connection is still good
}

TEST(Publisher, AKeptAliveConnectionTheServerClosedIsReopenedOnce) {
  FakeServer fake;
  std::thread server([&] {
    for (int i = 0; i < 2; ++i) {
      auto peer = fake.accept();
      if (!peer || !peer->read_until("\r\n\r\nhello")) return;
      peer->send(ok_reply());
      peer->read_until_closed(100ms);  // a keep-alive connection the server then drops while idle
    }
  });
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(fake.port(), "/pub/t")).kind, ErrorKind::none);
  EXPECT_EQ(publisher.publish("hello").error.kind, ErrorKind::none);
  const PublishResult second = publisher.publish("hello");
  EXPECT_EQ(second.error.kind, ErrorKind::none) << second.error.message;
  EXPECT_EQ(second.id, "E:1");
  server.join();
}

TEST(Publisher, BusyAndRefusedAndBadUrls) {
  FakeServer fake;
  std::thread server([&] {
    auto peer = fake.accept();
    if (!peer || !peer->read_until("\r\n\r\nx")) return;
    peer->send("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 6\r\n\r\nfull\r\n");
    peer->read_until_closed();
  });
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(fake.port(), "/pub/t")).kind, ErrorKind::none);
  const PublishResult busy = publisher.publish("x");
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.retry_after, std::chrono::seconds(1));
  publisher.close();
  server.join();

  ASSERT_EQ(publisher.open(http_url(closed_port(), "/pub/t")).kind, ErrorKind::none);
  EXPECT_EQ(publisher.publish("x").error.kind, ErrorKind::refused);
  EXPECT_EQ(publisher.open("ws://127.0.0.1:1/pub/t").kind, ErrorKind::bad_url);
  EXPECT_EQ(publisher.open("wss://127.0.0.1/pub/t").kind, ErrorKind::bad_url);
  Publisher unopened;
  EXPECT_EQ(unopened.publish("x").error.kind, ErrorKind::bad_url);
}

// A reply whose body comes a byte at a time, each well within the timeout,
// is given up once the whole exchange has taken the timeout: the server
// never gets to send all of it.
TEST(Publisher, AReplyTrickledByteByByteIsGivenUpAtTheTimeout) {
  FakeServer fake;
  constexpr int kBodyBytes = 100;
  int sent = 0;
  std::thread server([&] {
    auto peer = fake.accept();
    if (!peer || !peer->read_until("\r\n\r\nx")) return;
    peer->send("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kBodyBytes) + "\r\n\r\n");
    for (; sent < kBodyBytes && !peer->read_until_closed(50ms); ++sent) peer->send("{");
  });
  PublisherOptions options;
  options.timeout = 300ms;
  Publisher publisher(options);
  ASSERT_EQ(publisher.open(http_url(fake.port(), "/pub/t")).kind, ErrorKind::none);
  const PublishResult result = publisher.publish("x");
  EXPECT_EQ(result.error.kind, ErrorKind::idle_timeout) << result.error.message;
  server.join();
  EXPECT_LT(sent, kBodyBytes) << "the whole reply was waited for";
}

TEST(Publisher, AReplyThatIsNotHttpIsABadResponse) {
  FakeServer fake;
  std::thread server([&] {
    auto peer = fake.accept();
    if (peer && peer->read_until("\r\n\r\n")) peer->send("220 smtp.example.com ESMTP\r\n");
    if (peer) peer->read_until_closed();
  });
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(fake.port(), "/pub/t")).kind, ErrorKind::none);
  EXPECT_EQ(publisher.publish("x").error.kind, ErrorKind::bad_response);
  publisher.close();
  server.join();
}

}  // namespace
}  // namespace sluice::client::test
