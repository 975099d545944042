// An authorizer that decides on a thread of its own (as one asking another
// server would): each decision is handed to the connection's loop and
// reaches its client; one given after the client left reaches nobody and
// says so. Small enough to run under ThreadSanitizer in `make test`
// (threads_tests): the decisions cross threads through the loop's inbox,
// never touching a connection off its loop.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_client.hpp"

namespace sluice::test {
namespace {

using server::Action;
using server::AuthDecision;
using server::AuthReply;
using server::AuthRequest;

// Subscriptions wait for a decision from the authorizer's thread: "ok.*"
// allowed, "held.*" kept until the test releases it, anything else 403.
class ThreadedAuthorizer {
 public:
  ThreadedAuthorizer() : thread_([this] { run(); }) {}
  ~ThreadedAuthorizer() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  AuthDecision operator()(const AuthRequest& r) {
    if (r.action != Action::subscribe) return AuthDecision::allow();
    AuthReply reply = r.answer_later();
    if (!reply) return AuthDecision::deny(503, "cannot wait here");
    {
      const std::lock_guard lock(mutex_);
      asked_.push_back({std::move(reply), std::string(r.topic)});
    }
    changed_.notify_all();
    return AuthDecision::later();
  }

  // The test's thread: the held question, once asked.
  std::shared_ptr<AuthReply> held() {
    const std::lock_guard lock(mutex_);
    return held_;
  }
  void release_held() {
    {
      const std::lock_guard lock(mutex_);
      release_ = true;
    }
    changed_.notify_all();
  }
  std::atomic<int> held_given{-1};  // what giving the held decision returned

 private:
  struct Question {
    AuthReply reply;
    std::string topic;
  };

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !asked_.empty() || (release_ && held_); });
      if (stopping_) return;
      if (release_ && held_) {
        held_given = (*held_)(AuthDecision::allow()) ? 1 : 0;
        held_.reset();
        continue;
      }
      Question q = std::move(asked_.front());
      asked_.pop_front();
      if (q.topic.starts_with("held")) {
        held_ = std::make_shared<AuthReply>(std::move(q.reply));
        continue;
      }
      lock.unlock();
      (void)q.reply(q.topic.starts_with("ok") ? AuthDecision::allow() : AuthDecision::deny(403, "not on this thread's list"));
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Question> asked_;
  std::shared_ptr<AuthReply> held_;
  bool release_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

struct AuthorizationThreads : testing::Test {
  AuthorizationThreads()
      : running(config(), [this](server::Server& s) { s.authorize([this](const AuthRequest& r) { return gate(r); }); }) {}
  static server::Config config() {
    server::Config c;
    c.threads = 2;
    return c;
  }
  ThreadedAuthorizer gate;  // outlives the server
  RunningServer running;
};

TEST_F(AuthorizationThreads, DecisionsFromTheAuthorizersThreadReachEachClient) {
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int i = 0; i < 8; ++i) {
    clients.push_back(std::make_unique<TestClient>(running.port()));
    const std::string topic = (i % 2 == 0 ? "ok." : "no.") + std::to_string(i);
    clients.back()->send("GET /sse/" + topic + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    if (i % 2 == 0) {
      EXPECT_TRUE(clients[i]->read_until_contains("HTTP/1.1 200 OK\r\n"));
    } else {
      const HttpReply refused = read_reply(*clients[i]);
      EXPECT_EQ(refused.status, 403);
      EXPECT_EQ(refused.body, "not on this thread's list\n");
    }
  }
}

TEST_F(AuthorizationThreads, ADecisionForAClientThatLeftReachesNobody) {
  auto leaving = std::make_unique<TestClient>(running.port());
  leaving->send("GET /sse/held.x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  std::shared_ptr<AuthReply> held;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!(held = gate.held()) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(2ms);
  ASSERT_NE(held, nullptr);
  leaving.reset();
  while (!held->withdrawn() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(2ms);
  ASSERT_TRUE(held->withdrawn());
  gate.release_held();
  while (gate.held_given.load() < 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(2ms);
  EXPECT_EQ(gate.held_given.load(), 0);
  EXPECT_EQ(http_request(running.port(), "GET", "/healthz").status, 200);
}

}  // namespace
}  // namespace sluice::test
