#include "session/pending_auth.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

namespace sluice::server::detail {
namespace {

struct Sink final : DecisionSink {
  void decided(const AuthDecision& decision) override { statuses.push_back(decision.status()); }
  std::vector<int> statuses;
};

struct PendingAuthTest : testing::Test {
  PendingAuthTest() { question->set_in_call(false); }
  Sink sink;
  std::shared_ptr<PendingAuth> question = std::make_shared<PendingAuth>(sink);
  AuthReply reply{question};
};

TEST_F(PendingAuthTest, ADecisionIsTakenOnce) {
  EXPECT_TRUE(reply(AuthDecision::deny(403, "no")));
  EXPECT_FALSE(reply(AuthDecision::allow()));
  EXPECT_EQ(sink.statuses, std::vector<int>{403});
  EXPECT_FALSE(reply.withdrawn());
}

TEST_F(PendingAuthTest, LaterIsNotADecision) {
  EXPECT_FALSE(reply(AuthDecision::later()));
  EXPECT_TRUE(reply(AuthDecision::allow()));
  EXPECT_EQ(sink.statuses, std::vector<int>{0});
}

TEST_F(PendingAuthTest, AWithdrawnQuestionRunsOnWithdrawnOnceAndTakesNoDecision) {
  int stopped = 0;
  reply.on_withdrawn([&] { ++stopped; });
  question->withdraw();
  question->withdraw();
  EXPECT_EQ(stopped, 1);
  EXPECT_TRUE(reply.withdrawn());
  EXPECT_FALSE(reply(AuthDecision::allow()));
  EXPECT_TRUE(sink.statuses.empty());
}

TEST_F(PendingAuthTest, ADecidedQuestionIsNotWithdrawn) {
  int stopped = 0;
  reply.on_withdrawn([&] { ++stopped; });
  EXPECT_TRUE(reply(AuthDecision::allow()));
  question->withdraw();
  EXPECT_EQ(stopped, 0);
  EXPECT_FALSE(reply.withdrawn());
}

TEST_F(PendingAuthTest, TheHandleMayOutliveTheConnection) {
  question->withdraw();
  question.reset();  // the connection is gone; the authorizer still holds `reply`
  EXPECT_FALSE(reply(AuthDecision::allow()));
  EXPECT_TRUE(reply.withdrawn());
}

// Without a mailbox (no loop to hand it to) a decision from another thread
// is refused, and the question still waits for one on its own thread.
TEST_F(PendingAuthTest, ADecisionFromAnotherThreadWithoutAMailboxIsNotTaken) {
  bool taken = true;
  std::thread other([&] { taken = reply(AuthDecision::allow()); });
  other.join();
  EXPECT_FALSE(taken);
  EXPECT_TRUE(reply(AuthDecision::deny(401, "who")));
  EXPECT_EQ(sink.statuses, std::vector<int>{401});
}

// The loop's side: the mailbox wakes it, and the decision reaches the sink
// only when the loop drains it, on its own thread.
struct MailboxTest : testing::Test {
  MailboxTest() { question->set_in_call(false); }
  int wakes = 0;
  std::shared_ptr<DecisionMailbox> mailbox = std::make_shared<DecisionMailbox>([this] { ++wakes; });
  Sink sink;
  std::shared_ptr<PendingAuth> question = std::make_shared<PendingAuth>(sink, mailbox);
  AuthReply reply{question};

  bool give_from_another_thread(const AuthDecision& decision) {
    bool taken = false;
    std::thread([&] { taken = reply(decision); }).join();
    return taken;
  }
};

TEST_F(MailboxTest, ADecisionFromAnotherThreadIsTakenWhenTheLoopDrains) {
  EXPECT_TRUE(give_from_another_thread(AuthDecision::deny(403, "no")));
  EXPECT_EQ(wakes, 1);
  EXPECT_TRUE(sink.statuses.empty());
  EXPECT_FALSE(give_from_another_thread(AuthDecision::allow())) << "taken once";
  EXPECT_FALSE(reply(AuthDecision::allow())) << "taken once, whichever thread";
  mailbox->drain();
  EXPECT_EQ(sink.statuses, std::vector<int>{403});
}

TEST_F(MailboxTest, AQuestionWithdrawnBeforeTheDrainDropsTheDecision) {
  EXPECT_TRUE(give_from_another_thread(AuthDecision::allow()));
  question->withdraw();
  mailbox->drain();
  EXPECT_TRUE(sink.statuses.empty());
  EXPECT_FALSE(give_from_another_thread(AuthDecision::allow()));
}

TEST_F(MailboxTest, AClosedMailboxRefuses) {
  mailbox->close();
  EXPECT_FALSE(give_from_another_thread(AuthDecision::allow()));
  EXPECT_EQ(wakes, 0);
}

TEST(PendingAuth, ADecisionGivenDuringTheAuthorizersCallIsKeptForTheCheck) {
  Sink sink;
  auto question = std::make_shared<PendingAuth>(sink);
  EXPECT_TRUE(AuthReply(question)(AuthDecision::deny(429, "slow", 2)));
  EXPECT_TRUE(sink.statuses.empty());  // not handed on: the check takes it as its answer
  const std::optional<AuthDecision> early = question->take_early();
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status(), 429);
  EXPECT_FALSE(question->take_early());
}

TEST(PendingAuth, AnEmptyHandleTakesNothing) {
  const AuthReply empty;
  EXPECT_FALSE(empty);
  EXPECT_FALSE(empty(AuthDecision::allow()));
  EXPECT_TRUE(empty.withdrawn());
}

}  // namespace
}  // namespace sluice::server::detail
