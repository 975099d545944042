// The token authorizer sluiced installs with auth.mode=jwt, in a real
// server over real sockets: a connection that sends the same token on
// request after request (a kept-alive HTTP/1.1 connection, the streams of
// one h2c connection) has it verified once, which the authorizer's counts
// (sluice_tokens_total's cells) show; a different token, an expired one and an authorizer built
// from another secret are each verified anew and judged as ever.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "auth/jwt_mint.hpp"
#include "metrics/registry.hpp"
#include "server/token_authorizer.hpp"
#include "child_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using std::chrono::system_clock;

const std::string kSecret = "token-reuse-secret-0123456789abcdef";
const std::string kOtherSecret = "another-secret-for-a-rebuilt-authorizer";

server::Config jwt_config(const std::string& secret = kSecret) {
  server::Config config;
  config.threads = 1;
  config.auth.mode = server::AuthMode::jwt;
  config.auth.jwt_secret = secret;
  // No slack: a token is expired the moment its exp passes.
  config.auth.clock_skew_ms = 0;
  return config;
}

// A token for `subject` that may publish on "news", issued at `issued_at`
// and valid `ttl` from the whole second it was issued in.
std::string mint(const std::string& subject, system_clock::time_point issued_at = system_clock::now(),
                 std::chrono::seconds ttl = std::chrono::seconds(3600), const std::string& secret = kSecret,
                 const std::string& topic = "news") {
  auth::SigningKey key;
  EXPECT_FALSE(auth::signing_key_from_secret(secret, key));
  auth::TokenClaims claims;
  claims.subject = subject;
  claims.publish = {topic};
  claims.issued_at = issued_at;
  claims.ttl = ttl;
  std::string token;
  EXPECT_FALSE(auth::mint_token(claims, key, token));
  return token;
}

// What an authorizer counted, over every loop.
struct TokenChecks {
  std::uint64_t verified = 0;
  std::uint64_t reused = 0;
  std::uint64_t refused = 0;
};

TokenChecks checks_in(const metrics::Registry& registry) {
  auto total = [&](metrics::TokenOutcome outcome) {
    const auto at = static_cast<std::size_t>(outcome);
    return registry.sum([at](const metrics::LoopMetrics& m) { return m.tokens[at].value(); });
  };
  return {total(metrics::TokenOutcome::verified), total(metrics::TokenOutcome::reused),
          total(metrics::TokenOutcome::refused)};
}

// A server (one loop) whose authorizer is the one sluiced builds, counting
// in cells of the test's own.
class TokenReuse : public testing::Test {
 protected:
  TokenReuse()
      : server_(jwt_config(), [this](server::Server& s) {
          server::Authorizer authorizer;
          ASSERT_FALSE(server::make_token_authorizer(jwt_config(), authorizer, &counts_));
          s.authorize(std::move(authorizer));
        }) {}

  TokenChecks checks() const { return checks_in(counts_); }

  static int publish_with(TestClient& client, const std::string& topic, const std::string& token) {
    client.send("POST /pub/" + topic + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
                "\r\nContent-Length: 5\r\n\r\nhello");
    return read_reply(client).status;
  }

  metrics::Registry counts_{1};
  RunningServer server_;
};

TEST_F(TokenReuse, AKeptAliveConnectionHasItsTokenVerifiedOnce) {
  constexpr int kPublishes = 20;
  const std::string token = mint("alice");
  TestClient client(server_.port());
  for (int i = 0; i < kPublishes; ++i) ASSERT_EQ(publish_with(client, "news", token), 200) << i;
  EXPECT_EQ(checks().verified, 1u);
  EXPECT_EQ(checks().reused, static_cast<std::uint64_t>(kPublishes - 1));
}

TEST_F(TokenReuse, ANewConnectionVerifiesTheSameTokenAgain) {
  const std::string token = mint("alice");
  TestClient first(server_.port());
  ASSERT_EQ(publish_with(first, "news", token), 200);
  TestClient second(server_.port());
  ASSERT_EQ(publish_with(second, "news", token), 200);
  EXPECT_EQ(checks().verified, 2u);
  EXPECT_EQ(checks().reused, 0u);
}

TEST_F(TokenReuse, ADifferentTokenOnTheSameConnectionIsVerifiedAnewAndJudgedByItsOwnGrants) {
  TestClient client(server_.port());
  ASSERT_EQ(publish_with(client, "news", mint("alice")), 200);
  const std::string bob = mint("bob");
  ASSERT_EQ(publish_with(client, "news", bob), 200);
  EXPECT_EQ(checks().verified, 2u);
  // Bob's token grants "news" only: reused or not, a topic it does not
  // grant is refused (and the refused connection closed).
  EXPECT_EQ(publish_with(client, "sports", bob), 403);
  EXPECT_EQ(checks().verified, 2u);
  EXPECT_EQ(checks().reused, 1u);
  // A forged token is refused after a good one on the same connection. (A
  // character well inside the signature: the last one carries bits
  // base64url decoding may ignore.)
  TestClient another(server_.port());
  ASSERT_EQ(publish_with(another, "news", bob), 200);
  std::string forged = bob;
  char& flipped = forged[forged.size() - 5];
  flipped = flipped == 'A' ? 'B' : 'A';
  EXPECT_EQ(publish_with(another, "news", forged), 401);
  EXPECT_EQ(checks().verified, 3u);
  EXPECT_EQ(checks().refused, 1u);
  EXPECT_EQ(checks().reused, 1u);
}

TEST_F(TokenReuse, ATokenThatExpiresBetweenTwoRequestsIsRefusedOnTheSecond) {
  // Issued in the current whole second with a 2 s life: it expires 1-2 s
  // from now, time enough for the first request.
  const system_clock::time_point issued = std::chrono::floor<std::chrono::seconds>(system_clock::now());
  const system_clock::time_point expires = issued + std::chrono::seconds(2);
  const std::string token = mint("alice", issued, std::chrono::seconds(2));
  TestClient client(server_.port());
  ASSERT_EQ(publish_with(client, "news", token), 200);
  ASSERT_LT(system_clock::now(), expires) << "the machine took over a second to answer one request";
  // Waits for the expiry instant itself, watching the clock.
  while (system_clock::now() < expires) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  client.send("POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
              "\r\nContent-Length: 5\r\n\r\nhello");
  const HttpReply refused = read_reply(client);
  EXPECT_EQ(refused.status, 401);
  EXPECT_NE(refused.body.find("token expired"), std::string::npos) << refused.body;
  EXPECT_EQ(checks().reused, 0u);
}

TEST_F(TokenReuse, TheStreamsOfOneH2cConnectionHaveTheirTokenVerifiedOnce) {
  constexpr int kPublishes = 8;
  const std::string token = mint("alice");
  ChildProcess node({"node", SLUICE_SOURCE_DIR "/tests/peers/h2_token_posts.mjs",
                     "http://127.0.0.1:" + std::to_string(server_.port()), "news", token, std::to_string(kPublishes)});
  node.read_to_end(25s);
  ASSERT_EQ(node.wait(5s), 0) << node.output();
  const std::string& out = node.output();
  std::size_t ok = 0;
  for (std::size_t at = out.find("status 200"); at != std::string::npos; at = out.find("status 200", at + 1)) ++ok;
  ASSERT_EQ(ok, static_cast<std::size_t>(kPublishes)) << out;
  ASSERT_NE(out.find("session 1"), std::string::npos) << out;
  EXPECT_EQ(checks().verified, 1u);
  EXPECT_EQ(checks().reused, static_cast<std::uint64_t>(kPublishes - 1));
}

// A request without a token after one with a good token, on the same
// kept-alive connection, is anonymous: the identity the first proved is
// kept with that token's fingerprint and stands for that token only.
TEST_F(TokenReuse, ARequestWithoutATokenAfterAGoodOneIsNotTakenForItsIdentity) {
  TestClient client(server_.port());
  ASSERT_EQ(publish_with(client, "news", mint("alice")), 200);
  client.send("POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
  const HttpReply anonymous = read_reply(client);
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  EXPECT_NE(anonymous.head.find("WWW-Authenticate: Bearer"), std::string::npos) << anonymous.head;
  EXPECT_EQ(checks().reused, 0u);
}

// Streams of one h2c connection alternating two subjects' tokens (a proxy
// carrying two clients' requests): alice may publish on "news", bob only
// on "sports", and each stream is judged by its own token's grants every
// time, never by the other's identity left on the connection.
TEST_F(TokenReuse, TheStreamsOfOneH2cConnectionAlternatingTwoSubjectsEachGetTheirOwnGrants) {
  constexpr int kPublishes = 8;
  const std::string alice = mint("alice");
  const std::string bob = mint("bob", system_clock::now(), std::chrono::seconds(3600), kSecret, "sports");
  ChildProcess node({"node", SLUICE_SOURCE_DIR "/tests/peers/h2_token_posts.mjs",
                     "http://127.0.0.1:" + std::to_string(server_.port()), "news", alice + "," + bob,
                     std::to_string(kPublishes)});
  node.read_to_end(25s);
  ASSERT_EQ(node.wait(5s), 0) << node.output();
  std::string expected;
  for (int i = 0; i < kPublishes; ++i) expected += i % 2 == 0 ? "status 200\n" : "status 403\n";
  EXPECT_EQ(node.output(), expected + "session 1\n");
  // Each stream's token differs from the last one the connection proved.
  EXPECT_EQ(checks().verified, static_cast<std::uint64_t>(kPublishes));
  EXPECT_EQ(checks().reused, 0u);
}

// The authorizer alone, asked as a loop asks it, for what a request costs.
struct Asked {
  server::UserData user;
  std::vector<server::HeaderField> fields;

  server::AuthRequest connect(const std::string& authorization) {
    fields = {{"Host", "127.0.0.1"}, {"Authorization", authorization}};
    return {server::Action::connect, "POST", "/pub/news", "", "", "127.0.0.1:5000", server::Headers(fields), user};
  }
  server::AuthRequest publish() {
    return {server::Action::publish, "POST", "/pub/news", "", "news", "127.0.0.1:5000", server::Headers(fields), user};
  }
};

TEST(TokenAuthorizer, ReusingAConnectionsTokenAllocatesNothing) {
  server::Authorizer authorizer;
  metrics::Registry counts(1);
  ASSERT_FALSE(server::make_token_authorizer(jwt_config(), authorizer, &counts));
  Asked asked;
  const std::string bearer = "Bearer " + mint("alice");
  ASSERT_TRUE(authorizer(asked.connect(bearer)).allowed());
  ASSERT_TRUE(authorizer(asked.publish()).allowed());
  constexpr int kRequests = 100;
  const server::AuthRequest connect = asked.connect(bearer);
  const server::AuthRequest publish = asked.publish();
  const std::uint64_t before = allocations();
  bool all_allowed = true;
  for (int i = 0; i < kRequests; ++i) {
    all_allowed = authorizer(connect).allowed() && authorizer(publish).allowed() && all_allowed;
  }
  const std::uint64_t allocated = allocations() - before;
  EXPECT_TRUE(all_allowed);
  EXPECT_EQ(allocated, 0u);
  EXPECT_EQ(checks_in(counts).verified, 1u);
  EXPECT_EQ(checks_in(counts).reused, static_cast<std::uint64_t>(kRequests));
}

// A connection refused for its identity's connect limit is still a new
// one: the next request on it (an HTTP/2 connection's next stream) meets
// the limit again instead of reusing the identity the refused one proved.
TEST(TokenAuthorizer, AConnectionRefusedForItsIdentitysConnectLimitIsNotLetInByItsNextRequest) {
  server::Config config = jwt_config();
  config.auth.rate.connect_per_identity = 1;
  config.auth.rate.connect_per_identity_burst = 1;
  server::Authorizer authorizer;
  ASSERT_FALSE(server::make_token_authorizer(config, authorizer));
  const std::string bearer = "Bearer " + mint("alice");
  Asked first;
  ASSERT_TRUE(authorizer(first.connect(bearer)).allowed());
  Asked second;
  ASSERT_EQ(authorizer(second.connect(bearer)).status(), 429);
  // One request a second is let in: twenty at once let in one at most,
  // should a second pass while they are asked.
  int let_in = 0;
  for (int i = 0; i < 20; ++i) let_in += authorizer(second.connect(bearer)).allowed() ? 1 : 0;
  EXPECT_LE(let_in, 1);
}

// What a reload that changed the secret would do: build a new authorizer.
// A connection's data left by the old one is not taken as proof by the
// new one, whose verification refuses a token the old secret signed.
TEST(TokenAuthorizer, AnAuthorizerBuiltFromAnotherSecretDoesNotReuseTheOldOnesIdentity) {
  server::Authorizer old_one;
  ASSERT_FALSE(server::make_token_authorizer(jwt_config(), old_one));
  server::Authorizer new_one;
  metrics::Registry counts(1);
  ASSERT_FALSE(server::make_token_authorizer(jwt_config(kOtherSecret), new_one, &counts));
  Asked asked;
  const std::string bearer = "Bearer " + mint("alice");
  ASSERT_TRUE(old_one(asked.connect(bearer)).allowed());
  const server::AuthDecision decision = new_one(asked.connect(bearer));
  EXPECT_EQ(decision.status(), 401);
  EXPECT_EQ(checks_in(counts).refused, 1u);
  EXPECT_EQ(checks_in(counts).reused, 0u);
  // Signed with the new secret, the same subject is welcome again.
  EXPECT_TRUE(new_one(asked.connect("Bearer " + mint("alice", system_clock::now(), std::chrono::seconds(3600),
                                                        kOtherSecret)))
                  .allowed());
}

}  // namespace
}  // namespace sluice::test
