// The authorizer sluiced installs with an authorization callback, called
// as the server's sessions call it, against a real HTTP server the test
// starts (CallbackServer: it answers by the topic, "status-NNN" with NNN,
// "hold" never). The server is not run: the test turns its first loop by
// hand, on its own thread, which is the loop's thread for the answers.
#include "server/callback_authorizer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "auth/callback_server.hpp"
#include "server/server_impl.hpp"
#include "session/pending_auth.hpp"

namespace sluice::server {
namespace {

using namespace std::chrono_literals;
using auth::test::CallbackServer;

// Where a question waits: the decision lands here.
class Room final : public detail::AuthWaitRoom, public detail::DecisionSink {
 public:
  AuthReply defer() override {
    question = std::make_shared<detail::PendingAuth>(*this);
    return AuthReply(question);
  }
  void decided(const AuthDecision& d) override { decision = d; }

  std::shared_ptr<detail::PendingAuth> question;
  std::optional<AuthDecision> decision;
};

Config callback_config(std::uint16_t port, std::int64_t max_inflight = 64) {
  Config config;
  config.listen = "127.0.0.1:0";
  config.threads = 1;
  config.auth.mode = AuthMode::callback;
  config.auth.callback_url = "http://127.0.0.1:" + std::to_string(port) + "/authorize";
  config.auth.callback_max_inflight = max_inflight;
  return config;
}

class CallbackAuthorizerTest : public testing::Test {
 protected:
  void make(Authorizer first = {}, std::int64_t max_inflight = 64) {
    config_ = callback_config(callback_.port(), max_inflight);
    server_ = std::make_unique<Server>(config_);
    ASSERT_EQ(make_callback_authorizer(config_, *server_, std::move(first), authorizer_), std::nullopt);
  }

  // Asks as a session does; a question that waits is told to `room`.
  AuthDecision ask(Action action, std::string_view topic, Room* room, std::string_view peer = "127.0.0.1:5000",
                   bool held = false) {
    UserData user;
    const AuthRequest request{action, "GET", "/sse", "", topic, peer, Headers(fields_), user, {}, held, 0, room};
    AuthDecision decision = authorizer_(request);
    if (room != nullptr && room->question) room->question->set_in_call(false);
    return decision;
  }

  // Turns the loop until `room` has its decision (bounded).
  bool answered(Room& room) {
    io::Loop& loop = impl_of(*server_).workers[0]->loop();
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!room.decision && std::chrono::steady_clock::now() < deadline) loop.run_once(20);
    return room.decision.has_value();
  }

  CallbackServer callback_;
  Config config_;
  std::unique_ptr<Server> server_;
  Authorizer authorizer_;
  std::vector<HeaderField> fields_ = {{"Cookie", "session=abc"}};
};

TEST_F(CallbackAuthorizerTest, ConnectRefreshAndATopicHeldAfterARefreshAreNotAskedOfTheCallback) {
  make();
  Room room;
  EXPECT_TRUE(ask(Action::connect, {}, &room).allowed());
  EXPECT_TRUE(ask(Action::refresh, {}, nullptr).allowed());
  EXPECT_TRUE(ask(Action::subscribe, "status-403", nullptr, "127.0.0.1:5000", true).allowed());
  EXPECT_EQ(room.question, nullptr);
  EXPECT_EQ(callback_.requests(), 0u);
}

TEST_F(CallbackAuthorizerTest, WhereTheClientCannotWaitTheAnswerIs503AndNothingIsAsked) {
  make();
  const AuthDecision decision = ask(Action::subscribe, "status-200", nullptr);
  EXPECT_EQ(decision.status(), 503);
  EXPECT_EQ(decision.retry_after(), 1u);
  EXPECT_EQ(callback_.requests(), 0u);
}

TEST_F(CallbackAuthorizerTest, TheFirstAuthorizerDecidesFirstAndAloneForConnect) {
  int asked_first = 0;
  make([&](const AuthRequest& r) {
    ++asked_first;
    if (r.topic == "denied-by-token") return AuthDecision::deny(401, "token expired");
    return AuthDecision::allow();
  });
  Room room;
  const AuthDecision refused = ask(Action::subscribe, "denied-by-token", &room);
  EXPECT_EQ(refused.status(), 401);
  EXPECT_TRUE(ask(Action::connect, {}, &room).allowed());
  EXPECT_EQ(asked_first, 2);
  EXPECT_EQ(room.question, nullptr);
  EXPECT_EQ(callback_.requests(), 0u);

  // What the token allows is asked of the callback, which refuses here.
  EXPECT_TRUE(ask(Action::publish, "status-403", &room).is_later());
  ASSERT_TRUE(answered(room));
  EXPECT_EQ(room.decision->status(), 403);
  EXPECT_EQ(asked_first, 3);
}

TEST_F(CallbackAuthorizerTest, TheCallbackIsAskedTheActionTopicAndAddressAndDecidesLater) {
  make();
  Room denied;
  EXPECT_TRUE(ask(Action::subscribe, "status-401", &denied, "[::1]:6000").is_later());
  ASSERT_TRUE(answered(denied));
  EXPECT_EQ(denied.decision->status(), 401);
  EXPECT_FALSE(denied.decision->challenge().empty());
  Room allowed;
  EXPECT_TRUE(ask(Action::publish, "status-204", &allowed).is_later());
  ASSERT_TRUE(answered(allowed));
  EXPECT_TRUE(allowed.decision->allowed());

  const std::vector<std::string> asked = callback_.received();
  ASSERT_EQ(asked.size(), 2u);
  // The address alone, without its port or brackets: the answer is the
  // client's, cached for each of its connections.
  EXPECT_NE(asked[0].find(R"({"action":"subscribe","remote_addr":"::1","topic":"status-401"})"), std::string::npos)
      << asked[0];
  EXPECT_NE(asked[0].find("Cookie: session=abc\r\n"), std::string::npos) << asked[0];
  EXPECT_NE(asked[1].find(R"({"action":"publish","remote_addr":"127.0.0.1","topic":"status-204"})"),
            std::string::npos)
      << asked[1];

  // Cached: the same question is answered at once.
  Room again;
  EXPECT_TRUE(ask(Action::publish, "status-204", &again).allowed());
  EXPECT_EQ(callback_.requests(), 2u);
}

TEST_F(CallbackAuthorizerTest, AWithdrawnQuestionGivesBackItsPlaceAmongThoseInFlight) {
  make({}, 1);
  Room held;
  EXPECT_TRUE(ask(Action::subscribe, "hold", &held).is_later());
  Room over;
  const AuthDecision refused = ask(Action::subscribe, "status-200", &over);
  EXPECT_EQ(refused.status(), 503);
  // The client went away: its question is withdrawn, and the callback's
  // socket for it closed.
  held.question->withdraw();
  Room next;
  EXPECT_TRUE(ask(Action::subscribe, "status-200", &next).is_later());
  ASSERT_TRUE(answered(next));
  EXPECT_TRUE(next.decision->allowed());
  EXPECT_FALSE(held.decision);
}

TEST(CallbackAuthorizerSettings, BadSettingsAreOneLineNamingTheKey) {
  Config config = callback_config(9);
  Server server(config);
  Authorizer out;
  config.auth.callback_url.clear();
  EXPECT_EQ(make_callback_authorizer(config, server, {}, out),
            "config key 'auth.callback_url' must be set with auth.mode=callback");
  config.auth.callback_url = "https://127.0.0.1:9/x";
  std::optional<std::string> error = make_callback_authorizer(config, server, {}, out);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("auth.callback_url"), std::string::npos) << *error;
  config.auth.callback_url = "http://127.0.0.1:9/x";
  config.auth.callback_headers = {"Host"};
  error = make_callback_authorizer(config, server, {}, out);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("auth.callback_headers"), std::string::npos) << *error;
  EXPECT_FALSE(out);
}

}  // namespace
}  // namespace sluice::server
