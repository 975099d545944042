// WsSession's token refresh against the real sluiced with JWT auth: a /ws
// connection whose token source (ClientOptions::token) has a new token
// presents it ({"op":"refresh"}) before the one it opened with expires,
// and goes on past that expiry on the same connection.
#include "ws_session.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "auth/jwt_mint.hpp"
#include "sluice/client/ws_client.hpp"
#include "sluiced_process.hpp"
#include "token_expiry.hpp"

namespace sluice::client::detail {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kSecret = "a-secret-of-at-least-thirty-two-bytes!!";

std::string mint(std::chrono::seconds ttl) {
  auth::SigningKey key;
  EXPECT_EQ(auth::signing_key_from_secret(kSecret, key), std::nullopt);
  auth::TokenClaims claims;
  claims.subscribe = {"*"};
  claims.issued_at = std::chrono::system_clock::now();
  claims.ttl = ttl;
  std::string token;
  EXPECT_EQ(auth::mint_token(claims, key, token), std::nullopt);
  return token;
}

// Takes events until an ack for `req` (bounded); its ok.
std::optional<bool> ack_of(WsClient& client, std::uint64_t req) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  Event event;
  while (std::chrono::steady_clock::now() < deadline) {
    if (client.next(event, 50ms) != NextStatus::event) continue;
    if (event.kind == EventKind::ack && event.req == req) return event.ok;
  }
  return std::nullopt;
}

TEST(WsTokenRefresh, AConnectionPresentsItsNextTokenBeforeTheFirstExpiresAndOutlivesIt) {
  sluice::test::SluicedProcess sluiced({"auth.mode=jwt", "auth.jwt_secret=" + std::string(kSecret), "auth.clock_skew_ms=0"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  // The first token lives two seconds at most; each asked after it, a
  // minute. exp counts whole seconds from a truncated iat, so a one-second
  // token could expire within a millisecond of its minting, before the
  // upgrade it rides on is read, and the client would rightly reconnect.
  std::mutex mutex;
  std::vector<std::string> given;
  ClientOptions options;
  options.token = [&] {
    std::lock_guard lock(mutex);
    given.push_back(mint(given.empty() ? 2s : 60s));
    return given.back();
  };
  WsClient client(options);
  const Submit first = client.subscribe("before");
  ASSERT_EQ(client.start("ws://127.0.0.1:" + std::to_string(sluiced.port()) + "/ws").kind, ErrorKind::none);
  ASSERT_EQ(ack_of(client, first.req), true);
  std::optional<std::int64_t> first_exp;
  {
    std::lock_guard lock(mutex);
    ASSERT_FALSE(given.empty());
    first_exp = token_expiry(given.front());
  }
  ASSERT_TRUE(first_exp);
  // The first token expires: the server would close a connection resting
  // on it (4401) as soon as it reads from it.
  const auto expired = std::chrono::system_clock::from_time_t(static_cast<std::time_t>(*first_exp)) + 20ms;
  while (std::chrono::system_clock::now() < expired) std::this_thread::sleep_for(10ms);
  const Submit after = client.subscribe("after");
  ASSERT_EQ(ack_of(client, after.req), true);
  EXPECT_EQ(client.stats().connects, 1u) << "reconnected instead of refreshing";
  EXPECT_EQ(client.state(), ClientState::open);
  std::lock_guard lock(mutex);
  EXPECT_EQ(given.size(), 2u);  // once to connect, once to refresh
  client.stop();
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

}  // namespace
}  // namespace sluice::client::detail
