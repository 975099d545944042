#include "session/auth_gate.hpp"
#include "session/pending_auth.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace sluice::session {
namespace {

using server::Action;
using server::AuthDecision;
using server::AuthRequest;

struct AuthGateTest : testing::Test {
  AuthGateTest() {
    EXPECT_EQ(parser.parse(input).status, proto::http1::ParseStatus::complete);
  }
  AuthOutcome check(Action action, std::string_view topic) {
    return gate.check(action, topic, parser.request(), "127.0.0.1:5000", user);
  }

  std::string input = "POST /pub/news?x=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 0\r\n\r\n";
  proto::http1::RequestParser parser;
  server::Authorizer authorizer;
  LoopCounters counters;
  AuthGate gate{authorizer, counters};
  std::atomic<server::UserData> user;
};

TEST_F(AuthGateTest, WithoutAnAuthorizerEverythingIsAllowed) {
  EXPECT_FALSE(gate.installed());
  EXPECT_TRUE(check(Action::publish, "news").allowed());
  EXPECT_EQ(counters.denied.load(), 0u);
}

TEST_F(AuthGateTest, TheAuthorizerSeesTheRequestAndMaySetTheConnectionsData) {
  authorizer = [](const AuthRequest& r) {
    EXPECT_EQ(r.action, Action::publish);
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.path, "/pub/news");
    EXPECT_EQ(r.query, "x=1");
    EXPECT_EQ(r.topic, "news");
    EXPECT_EQ(r.peer, "127.0.0.1:5000");
    EXPECT_EQ(r.headers.get("authorization"), "Bearer t");
    r.user = std::make_shared<int>(7);
    return AuthDecision::allow();
  };
  EXPECT_TRUE(gate.installed());
  EXPECT_TRUE(check(Action::publish, "news").allowed());
  ASSERT_TRUE(user.load());
  EXPECT_EQ(*static_cast<const int*>(user.load().get()), 7);
}

TEST_F(AuthGateTest, ARefusalIsCountedAndWordedForEachProtocol) {
  authorizer = [](const AuthRequest&) { return AuthDecision::deny(429, "slow down", 3); };
  const AuthOutcome outcome = check(Action::subscribe, "news");
  EXPECT_FALSE(outcome.allowed());
  EXPECT_EQ(outcome.http_status(), 429);
  EXPECT_EQ(outcome.reason(), "slow down");
  EXPECT_EQ(outcome.text(), "429 slow down");
  EXPECT_EQ(outcome.retry_after(), 3u);
  EXPECT_EQ(static_cast<int>(outcome.close_code()), 4429);
  EXPECT_EQ(counters.denied.load(), 1u);
}

TEST_F(AuthGateTest, AnAuthorityThatCannotBeAskedIsTryAgainLater) {
  authorizer = [](const AuthRequest&) { return AuthDecision::deny(503, "authority unreachable", 1); };
  const AuthOutcome outcome = check(Action::subscribe, "news");
  EXPECT_EQ(outcome.http_status(), 503);
  EXPECT_EQ(static_cast<int>(outcome.close_code()), 1013);
  EXPECT_EQ(outcome.retry_after(), 1u);
}

TEST_F(AuthGateTest, AnExceptionIsARefusalThatIsTheServersFailure) {
  authorizer = [](const AuthRequest& r) -> AuthDecision {
    r.user = std::make_shared<int>(1);  // set before the throw: still kept
    throw std::runtime_error("secret detail");
  };
  const AuthOutcome outcome = check(Action::connect, {});
  EXPECT_FALSE(outcome.allowed());
  EXPECT_EQ(outcome.http_status(), 500);
  EXPECT_EQ(outcome.text(), "500 authorization failed");
  EXPECT_EQ(outcome.close_code(), proto::ws::CloseCode::internal_error);
  EXPECT_EQ(counters.denied.load(), 1u);
  EXPECT_TRUE(user.load());
}

}  // namespace
}  // namespace sluice::session

namespace sluice::session {
namespace {

struct Room final : server::detail::AuthWaitRoom, server::detail::DecisionSink {
  server::AuthReply defer() override {
    question = std::make_shared<server::detail::PendingAuth>(static_cast<DecisionSink&>(*this));
    return server::AuthReply(question);
  }
  void decided(const server::AuthDecision&) override {}
  std::shared_ptr<server::detail::PendingAuth> question;
};

TEST(AuthGateLater, LaterIsPendingNotARefusalAndTheRequestSaysWhereItMayWait) {
  proto::http1::RequestParser parser;
  const std::string input = "GET /sse/news HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(parser.parse(input).status, proto::http1::ParseStatus::complete);
  bool could_wait = false;
  unsigned loop = 0;
  const server::Authorizer authorizer = [&](const server::AuthRequest& r) {
    could_wait = r.can_wait();
    loop = r.loop;
    return r.answer_later() ? server::AuthDecision::later() : server::AuthDecision::deny(503, "cannot wait");
  };
  LoopCounters counters;
  AuthGate gate{authorizer, counters, 3};
  std::atomic<server::UserData> user;
  Room room;
  const AuthOutcome waiting = gate.check(server::Action::subscribe, "news", parser.request(), "p", user, &room);
  EXPECT_TRUE(waiting.is_pending());
  EXPECT_FALSE(waiting.allowed());
  EXPECT_TRUE(could_wait);
  EXPECT_EQ(loop, 3u);
  EXPECT_TRUE(room.question);
  EXPECT_EQ(counters.denied.load(), 0u);

  const AuthOutcome now = gate.check(server::Action::subscribe, "news", parser.request(), "p", user);
  EXPECT_FALSE(could_wait);
  EXPECT_FALSE(now.is_pending());
  EXPECT_EQ(now.http_status(), 503);
  EXPECT_EQ(counters.denied.load(), 1u);

  EXPECT_EQ(static_cast<int>(gate.judge(server::AuthDecision::deny(403, "later no")).close_code()), 4403);
  EXPECT_EQ(counters.denied.load(), 2u);
}

}  // namespace
}  // namespace sluice::session
