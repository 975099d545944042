// What a client tells the application when it cannot get a stream: refused
// connections, refusing statuses, servers that do not speak HTTP or SSE,
// protocol violations and silence; and which of them it retries.
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "client_test_support.hpp"
#include "sluice/client/sse_client.hpp"
#include "test_client.hpp"

namespace sluice::client::test {
namespace {

using sluice::test::RunningServer;

// Keeps every status report, for tests that look at what was retried.
class Reports {
 public:
  void attach(ClientOptions& options) {
    options.on_status = [this](const StatusReport& r) {
      std::lock_guard lock(mutex_);
      states_.push_back(r.state);
      if (r.error != nullptr) errors_.push_back(*r.error);
      if (r.state == ClientState::waiting) retry_in_.push_back(r.retry_in);
    };
  }
  std::vector<std::chrono::milliseconds> retries() {
    std::lock_guard lock(mutex_);
    return retry_in_;
  }
  // Waits for a `waiting` report after an error of `kind`; returns it.
  bool wait_for_retry_after(ErrorKind kind, ClientError& error, std::chrono::milliseconds& retry_in) {
    return wait_until([&] {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < errors_.size() && i < retry_in_.size(); ++i) {
        if (errors_[i].kind != kind) continue;
        error = errors_[i];
        retry_in = retry_in_[i];
        return true;
      }
      return false;
    });
  }

 private:
  std::mutex mutex_;
  std::vector<ClientState> states_;
  std::vector<ClientError> errors_;
  std::vector<std::chrono::milliseconds> retry_in_;
};

ClientOptions quick_sse_options(std::uint32_t max_attempts = 0) {
  ClientOptions options;
  options.reconnect.initial_delay = std::chrono::milliseconds(10);
  options.reconnect.max_delay = std::chrono::milliseconds(100);
  options.reconnect.max_attempts = max_attempts;
  return options;
}

ClientError wait_for_failure(SseClient& client) {
  EXPECT_TRUE(wait_until([&] { return client.state() == ClientState::failed; }));
  Event event;
  EXPECT_EQ(client.next(event, 10s), NextStatus::ended);
  return client.error();
}

TEST(ClientErrors, ARefusedConnectionIsRetriedThenFatalPastMaxAttempts) {
  SseClient client(quick_sse_options(3));
  ASSERT_EQ(client.start(http_url(closed_port(), "/sse/a")).kind, ErrorKind::none);
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::refused);
  EXPECT_TRUE(error.fatal);
  EXPECT_NE(error.message.find("refused"), std::string::npos) << error.message;
}

TEST(ClientErrors, ARefusedConnectionIsRetriedWithoutALimit) {
  ClientOptions options = quick_sse_options();
  Reports reports;
  reports.attach(options);
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(closed_port(), "/sse/a")).kind, ErrorKind::none);
  ClientError error;
  std::chrono::milliseconds retry_in{};
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::refused, error, retry_in));
  EXPECT_FALSE(error.fatal);
  EXPECT_LE(retry_in.count(), 100);
  client.stop();
  EXPECT_EQ(client.state(), ClientState::stopped);
}

TEST(ClientErrors, NotFoundIsFatalWithItsStatus) {
  RunningServer server;
  SseClient client(quick_sse_options());
  ASSERT_EQ(client.start(http_url(server.port(), "/nowhere")).kind, ErrorKind::none);
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::http_status);
  EXPECT_EQ(error.http_status, 404);
  EXPECT_TRUE(error.fatal);
  // The server's own line says why, after the status.
  EXPECT_NE(error.message.find("the server answered 404: no such resource"), std::string::npos) << error.message;
}

TEST(ClientErrors, ABadTopicIsFatal) {
  RunningServer server;
  SseClient client(quick_sse_options());
  ASSERT_EQ(client.start(http_url(server.port(), "/sse/no%20spaces")).kind, ErrorKind::none);
  EXPECT_EQ(wait_for_failure(client).http_status, 400);
}

TEST(ClientErrors, ServiceUnavailableIsRetriedAfterRetryAfter) {
  FakeServer fake;
  ClientOptions options = quick_sse_options();
  options.reconnect.max_delay = std::chrono::milliseconds(5000);
  Reports reports;
  reports.attach(options);
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  peer->send("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n");
  ClientError error;
  std::chrono::milliseconds retry_in{};
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::http_status, error, retry_in));
  EXPECT_EQ(error.http_status, 503);
  EXPECT_FALSE(error.fatal);
  EXPECT_GE(retry_in.count(), 2000);
}

TEST(ClientErrors, AServerThatDoesNotSpeakHttpIsFatal) {
  FakeServer fake;
  SseClient client(quick_sse_options());
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  peer->send("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n");  // and it keeps the connection open
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::bad_response);
  EXPECT_NE(error.message.find("does not speak HTTP"), std::string::npos) << error.message;
}

TEST(ClientErrors, AnAnswerThatIsNotAnEventStreamIsFatal) {
  RunningServer server;
  SseClient client(quick_sse_options());
  ASSERT_EQ(client.start(http_url(server.port(), "/healthz")).kind, ErrorKind::none);
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::bad_response);
  EXPECT_NE(error.message.find("not an event stream"), std::string::npos) << error.message;
}

TEST(ClientErrors, ALineOverTheLimitBreaksTheStreamAndIsRetried) {
  FakeServer fake;
  ClientOptions options = quick_sse_options();
  options.max_event_bytes = 1024;
  Reports reports;
  reports.attach(options);
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  peer->send(sse_head(10) + "data: " + std::string(5000, 'x'));
  ClientError error;
  std::chrono::milliseconds retry_in{};
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::protocol, error, retry_in));
  EXPECT_FALSE(error.fatal);
  EXPECT_NE(error.message.find("max_event_bytes"), std::string::npos) << error.message;
  EXPECT_TRUE(peer->read_until_closed());
  auto again = fake.accept();
  EXPECT_TRUE(again != nullptr);
}

TEST(ClientErrors, ServerCloseAndSilenceAreRetried) {
  FakeServer fake;
  ClientOptions options = quick_sse_options();
  options.idle_timeout = std::chrono::milliseconds(200);
  Reports reports;
  reports.attach(options);
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  auto first = fake.accept();
  ASSERT_TRUE(first && first->read_until("\r\n\r\n"));
  first->send(sse_head(10));
  first->close();
  ClientError error;
  std::chrono::milliseconds retry_in{};
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::closed, error, retry_in));
  auto second = fake.accept();
  ASSERT_TRUE(second && second->read_until("\r\n\r\n"));
  second->send(sse_head(10));  // then nothing, not even a heartbeat
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::idle_timeout, error, retry_in));
  EXPECT_FALSE(error.fatal);
  EXPECT_TRUE(second->read_until_closed());
}

// A server that says why in a comment before it closes (a token expired)
// has its words in the error, escaped; a heartbeat, or a comment before
// the last event, is not taken for them.
TEST(ClientErrors, TheServersLastCommentIsToldWithTheClose) {
  FakeServer fake;
  ClientOptions options = quick_sse_options();
  Reports reports;
  reports.attach(options);
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  auto first = fake.accept();
  ASSERT_TRUE(first && first->read_until("\r\n\r\n"));
  first->send(sse_head(10) + ": an old word\n\ndata: x\n\n: token expired\x1b[2J: reconnect\n\n:\n\n");
  first->close();
  ClientError error;
  std::chrono::milliseconds retry_in{};
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::closed, error, retry_in));
  EXPECT_EQ(error.message,
            "the server closed the connection while streaming (its last words: token expired\\x1b[2J: reconnect)");
  auto second = fake.accept();
  ASSERT_TRUE(second && second->read_until("\r\n\r\n"));
  second->send(sse_head(10) + ": said before\n\ndata: y\n\n");
  second->close();
  ClientError plain;
  ASSERT_TRUE(reports.wait_for_retry_after(ErrorKind::closed, plain, retry_in));
  client.stop();
}

TEST(ClientErrors, AHeadThatNeverEndsIsRefused) {
  FakeServer fake;
  SseClient client(quick_sse_options());
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  peer->send("HTTP/1.1 200 OK\r\n");
  for (int i = 0; i < 2000; ++i) peer->send("X-Padding: " + std::string(20, 'p') + "\r\n");
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::bad_response);
  EXPECT_NE(error.message.find("too long"), std::string::npos) << error.message;
}

// Takes `rounds` connections in turn, answers each with `reply` and closes
// it, waiting each time for the client to report its retry.
::testing::AssertionResult answer_and_close(FakeServer& fake, Reports& reports, int rounds, const std::string& reply) {
  for (int i = 0; i < rounds; ++i) {
    auto peer = fake.accept();
    if (!peer || !peer->read_until("\r\n\r\n")) return ::testing::AssertionFailure() << "no request " << i;
    peer->send(reply);
    peer->close();
    if (!wait_until([&] { return reports.retries().size() > static_cast<std::size_t>(i); })) {
      return ::testing::AssertionFailure() << "no retry " << i;
    }
  }
  return ::testing::AssertionSuccess();
}

// A server that accepts the stream, asks for "retry: 0" and closes at once
// (a misconfigured one, or one that lets every client in only to close)
// is called again after 50 ms at most the first time: streams that gave
// nothing back off as failed connections do.
TEST(ClientErrors, StreamsThatCloseAtOnceWithRetryZeroBackOff) {
  ClientOptions options = quick_sse_options();
  options.reconnect.max_delay = std::chrono::milliseconds(60000);
  Reports reports;
  reports.attach(options);
  FakeServer fake;
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  ASSERT_TRUE(answer_and_close(fake, reports, 5, sse_head(0)));
  client.stop();
  const std::vector<std::chrono::milliseconds> retries = reports.retries();
  ASSERT_GE(retries.size(), 5u);
  EXPECT_GE(retries[0].count(), 25);  // the server's word, from 50 ms
  EXPECT_LE(retries[0].count(), 50);
  for (std::size_t i = 1; i < 5; ++i) EXPECT_GE(retries[i].count(), 25 << i) << i;
  EXPECT_EQ(client.stats().connects, 5u);
}

// One that gives an event before it closes gave the stream something: the
// client comes back at the server's retry each time, but never sooner than
// 25 ms (50 ms drawn from its upper half).
TEST(ClientErrors, AServersRetryOfZeroIsTakenAsFiftyMilliseconds) {
  ClientOptions options = quick_sse_options();
  Reports reports;
  reports.attach(options);
  FakeServer fake;
  SseClient client(options);
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  ASSERT_TRUE(answer_and_close(fake, reports, 3, sse_head(0) + "id: a:1\ndata: hi\n\n"));
  client.stop();
  for (const std::chrono::milliseconds retry : reports.retries()) {
    EXPECT_GE(retry.count(), 25);
    EXPECT_LE(retry.count(), 50);
  }
}

}  // namespace
}  // namespace sluice::client::test
