// CallbackClient against a real HTTP server on a loopback port, driven by a
// real io::Loop (epoll, and poll for the level-triggered case). Every wait
// is on a condition, bounded.
#include "auth/callback_client.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>

#include <functional>

#include "callback_server.hpp"

namespace sluice::auth {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<proto::http1::Header>;

CallbackTarget target_for(std::uint16_t port) {
  CallbackTarget target;
  EXPECT_EQ(resolve_callback_url("http://127.0.0.1:" + std::to_string(port) + "/authorize?app=1", target),
            std::nullopt);
  return target;
}

bool run_until(io::Loop& loop, const std::function<bool()>& done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    loop.run_once(20);
  }
  return true;
}

class CallbackClientTest : public ::testing::TestWithParam<io::BackendKind> {
 protected:
  io::Loop loop_{GetParam()};
  test::CallbackServer server_;

  CallbackClient make(CallbackConfig config = {}) { return CallbackClient(loop_, target_for(server_.port()), config); }

  // Asks and waits for the answer.
  Decision answer_for(CallbackClient& client, std::string_view topic, Action action = Action::subscribe,
                      const Headers& headers = {}) {
    std::optional<Decision> got;
    const CallbackQuestion question{action, topic, headers, "203.0.113.7"};
    CallbackClient::Asked asked = client.ask(question, [&](const Decision& d) { got = d; });
    if (asked.now) return *asked.now;
    EXPECT_TRUE(run_until(loop_, [&] { return got.has_value(); })) << topic;
    return got.value_or(Decision::callback_failed("no answer in the test's bound", 1));
  }
};

TEST_P(CallbackClientTest, SendsTheQuestionAsJsonAndAllowsOn2xx) {
  CallbackClient client = make();
  const Decision d = answer_for(client, "status-204", Action::publish);
  EXPECT_TRUE(d.allowed()) << d.reason;
  ASSERT_EQ(server_.received().size(), 1u);
  const std::string request = server_.received().at(0);
  EXPECT_TRUE(request.starts_with("POST /authorize?app=1 HTTP/1.1\r\n")) << request;
  EXPECT_NE(request.find("\r\nHost: 127.0.0.1:" + std::to_string(server_.port()) + "\r\n"), std::string::npos);
  EXPECT_NE(request.find("\r\nContent-Type: application/json\r\n"), std::string::npos);
  EXPECT_TRUE(request.ends_with(R"({"action":"publish","remote_addr":"203.0.113.7","topic":"status-204"})")) << request;
  EXPECT_EQ(client.in_flight(), 0u);
}

TEST_P(CallbackClientTest, MapsTheCallbacksRefusals) {
  CallbackClient client = make();
  const Decision unauthenticated = answer_for(client, "status-401");
  EXPECT_EQ(unauthenticated.verdict, Verdict::unauthenticated);
  EXPECT_EQ(unauthenticated.reason, "the authorization callback answered 401");
  EXPECT_EQ(answer_for(client, "status-403").verdict, Verdict::forbidden);
  const Decision limited = answer_for(client, "retry-7");
  EXPECT_EQ(limited.verdict, Verdict::too_many);
  EXPECT_EQ(limited.retry_after_s, 7u);
  const Decision failed = answer_for(client, "status-500");
  EXPECT_EQ(failed.verdict, Verdict::unavailable);
  EXPECT_EQ(failed.retry_after_s, 1u);
}

TEST_P(CallbackClientTest, ForwardsCookiesAndTheChosenHeadersOnly) {
  CallbackConfig config;
  config.forward_headers = {"X-Session"};
  CallbackClient client = make(config);
  const Headers headers = {
      {"Cookie", "a=1"}, {"X-Other", "o"}, {"Authorization", "Bearer t"}, {"x-session", "s3"}, {"Cookie", "b=2"}};
  ASSERT_TRUE(answer_for(client, "status-200", Action::subscribe, headers).allowed());
  const std::string request = server_.received().at(0);
  EXPECT_NE(request.find("\r\nCookie: a=1; b=2\r\n"), std::string::npos) << request;
  EXPECT_NE(request.find("\r\nX-Session: s3\r\n"), std::string::npos) << request;
  EXPECT_EQ(request.find("X-Other"), std::string::npos) << request;
  EXPECT_EQ(request.find("Bearer t"), std::string::npos) << request;
}

TEST_P(CallbackClientTest, CachesAllowAndRefusalButAsksAgainAfterA429) {
  CallbackClient client = make();
  ASSERT_TRUE(answer_for(client, "status-200").allowed());
  ASSERT_EQ(answer_for(client, "status-403").verdict, Verdict::forbidden);
  ASSERT_EQ(server_.requests(), 2u);
  // Asked again: answered at once from the cache, the server not asked.
  std::optional<Decision> late;
  const CallbackClient::Asked again =
      client.ask({Action::subscribe, "status-200", {}, "203.0.113.7"}, [&](const Decision& d) { late = d; });
  ASSERT_TRUE(again.now);
  EXPECT_TRUE(again.now->allowed());
  EXPECT_EQ(answer_for(client, "status-403").verdict, Verdict::forbidden);
  EXPECT_EQ(server_.requests(), 2u);
  EXPECT_EQ(client.cache().size(), 2u);
  // Another action, another address or other cookies are other questions.
  ASSERT_TRUE(answer_for(client, "status-200", Action::publish).allowed());
  EXPECT_EQ(server_.requests(), 3u);
  (void)answer_for(client, "retry-3");
  (void)answer_for(client, "retry-3");
  EXPECT_EQ(server_.requests(), 5u);
  EXPECT_FALSE(late);
}

TEST_P(CallbackClientTest, ASilentCallbackHoldsUpOnlyItsOwnQuestionThenTimesOut) {
  CallbackConfig config;
  config.timeout = 300ms;
  CallbackClient client = make(config);
  std::optional<Decision> held;
  const auto asked_at = std::chrono::steady_clock::now();
  const CallbackClient::Asked asked =
      client.ask({Action::subscribe, "hold", {}, "203.0.113.7"}, [&](const Decision& d) { held = d; });
  ASSERT_FALSE(asked.now);
  // While it waits, other questions are answered.
  EXPECT_TRUE(answer_for(client, "status-200").allowed());
  EXPECT_FALSE(held);
  ASSERT_TRUE(run_until(loop_, [&] { return held.has_value(); }));
  EXPECT_GE(std::chrono::steady_clock::now() - asked_at, 300ms);
  EXPECT_EQ(held->verdict, Verdict::unavailable);
  EXPECT_EQ(held->reason, "the authorization callback did not answer within auth.callback_timeout_ms (300)");
  EXPECT_EQ(client.in_flight(), 0u);
}

TEST_P(CallbackClientTest, BoundsTheQuestionsInFlight) {
  CallbackConfig config;
  config.max_inflight = 2;
  config.timeout = 60s;
  CallbackClient client = make(config);
  int answered = 0;
  auto count = [&](const Decision&) { ++answered; };
  const CallbackClient::Asked first = client.ask({Action::subscribe, "hold", {}, "198.51.100.1"}, count);
  const CallbackClient::Asked second = client.ask({Action::subscribe, "hold", {}, "198.51.100.2"}, count);
  ASSERT_FALSE(first.now);
  ASSERT_FALSE(second.now);
  const CallbackClient::Asked third = client.ask({Action::subscribe, "hold", {}, "198.51.100.3"}, count);
  ASSERT_TRUE(third.now);
  EXPECT_EQ(third.now->verdict, Verdict::unavailable);
  EXPECT_EQ(third.now->reason, "the authorization callback is busy (auth.callback_max_inflight 2)");
  ASSERT_TRUE(run_until(loop_, [&] { return server_.requests() == 2; }));
  // A cancelled question frees its place and is never answered.
  client.cancel(first.ticket);
  EXPECT_EQ(client.in_flight(), 1u);
  EXPECT_TRUE(answer_for(client, "status-200").allowed());
  client.cancel(second.ticket);
  client.cancel(second.ticket);  // twice is harmless
  loop_.run_once(0);
  EXPECT_EQ(answered, 0);
  EXPECT_EQ(client.in_flight(), 0u);
}

TEST_P(CallbackClientTest, AReplyThatIsNotHttpOrNoReplyIsA503) {
  CallbackClient client = make();
  const Decision garbage = answer_for(client, "garbage");
  EXPECT_EQ(garbage.verdict, Verdict::unavailable);
  EXPECT_EQ(garbage.reason, "the authorization callback's reply is not HTTP");
  const Decision closed = answer_for(client, "close");
  EXPECT_EQ(closed.verdict, Verdict::unavailable);
  EXPECT_EQ(closed.reason, "the authorization callback closed without answering");
}

TEST_P(CallbackClientTest, AnUnreachableCallbackIsA503) {
  // A port held bound but not listening: connecting to it is refused.
  const int holder = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  CallbackClient client(loop_, target_for(io::local_port(holder)), {});
  const Decision d = answer_for(client, "status-200");
  ::close(holder);
  EXPECT_EQ(d.verdict, Verdict::unavailable);
  EXPECT_NE(d.reason.find("cannot reach the authorization callback"), std::string::npos) << d.reason;
}

INSTANTIATE_TEST_SUITE_P(Backends, CallbackClientTest, ::testing::Values(io::BackendKind::epoll, io::BackendKind::poll),
                         [](const auto& backend) {
                           return backend.param == io::BackendKind::epoll ? "epoll" : "poll";
                         });

}  // namespace
}  // namespace sluice::auth
