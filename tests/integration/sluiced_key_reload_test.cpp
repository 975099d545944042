// The token authorizer's keys reloaded in a running sluiced (SIGHUP): a
// new HS256 secret, a JWKS file rotated in place under the same name, and
// a key file that no longer loads. After a reload every request is
// verified under the new keys, a kept-alive connection's next request
// included (the identity its token proved under the old keys is not taken
// again); streams opened before it keep their events; a reload whose keys
// do not load changes nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "auth/jwt_mint.hpp"
#include "reloaded_sluiced.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

const std::string kSecretA = "the-first-secret-0123456789abcdefghij";
const std::string kSecretB = "the-second-secret-0123456789abcdefghij";

// An HS256 token for "alice" that may read and publish "news", signed with
// `secret` (its header naming `kid` when given).
std::string mint(const std::string& secret, const std::string& kid = {}) {
  auth::SigningKey key;
  EXPECT_FALSE(auth::signing_key_from_secret(secret, key));
  key.kid = kid;
  auth::TokenClaims claims;
  claims.subject = "alice";
  claims.subscribe = {"news"};
  claims.publish = {"news"};
  claims.issued_at = std::chrono::system_clock::now();
  std::string token;
  EXPECT_FALSE(auth::mint_token(claims, key, token));
  return token;
}

std::string with_secret(const std::string& secret) {
  return "[auth]\nmode = \"jwt\"\njwt_secret = \"" + secret + "\"\n";
}

// POST /pub/news on `client`'s connection (kept alive): the status.
int publish_with(TestClient& client, const std::string& token, const std::string& body = "hello") {
  client.send("POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
              "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  return read_reply(client).status;
}

int publish_once(std::uint16_t port, const std::string& token) {
  TestClient client(port);
  return publish_with(client, token);
}

TEST(SluicedKeyReload, ANewSecretRefusesTheOldOnesTokensAndOpenStreamsKeepTheirEvents) {
  ReloadedSluiced sluiced("key_reload_secret", with_secret(kSecretA));
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string token_a = mint(kSecretA);
  const std::string token_b = mint(kSecretB);
  TestClient stream(sluiced.port());
  stream.send("GET /sse/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token_a + "\r\n\r\n");
  ASSERT_TRUE(stream.read_until_contains("retry:")) << stream.buffer();
  // A kept-alive connection whose token is taken again without a check.
  TestClient kept(sluiced.port());
  ASSERT_EQ(publish_with(kept, token_a, "before"), 200);
  ASSERT_EQ(publish_with(kept, token_a, "before"), 200);
  ASSERT_EQ(publish_once(sluiced.port(), token_b), 401);

  ASSERT_TRUE(sluiced.reload(with_secret(kSecretB), "auth.jwt_secret")) << sluiced.output();
  EXPECT_EQ(sluiced.output().find(kSecretB), std::string::npos) << "the log names the key, never its value";
  // The kept-alive connection's token is verified under the new secret.
  EXPECT_EQ(publish_with(kept, token_a), 401);
  EXPECT_EQ(publish_once(sluiced.port(), token_a), 401);
  TestClient publisher(sluiced.port());
  ASSERT_EQ(publish_with(publisher, token_b, "after"), 200);
  EXPECT_TRUE(stream.read_until_contains("data: after\n")) << stream.buffer();
  EXPECT_FALSE(stream.eof());
}

// A JWKS of symmetric keys, each named by its kid.
std::string jwks(const std::string& kid, const std::string& k_base64url) {
  return R"({"keys":[{"kty":"oct","alg":"HS256","kid":")" + kid + R"(","k":")" + k_base64url + R"("}]})";
}
// base64url of "jwks-rotation-first-key-0123456789abcdef" and of
// "jwks-rotation-second-key-0123456789abcdef".
const std::string kFirstK = "andrcy1yb3RhdGlvbi1maXJzdC1rZXktMDEyMzQ1Njc4OWFiY2RlZg";
const std::string kSecondK = "andrcy1yb3RhdGlvbi1zZWNvbmQta2V5LTAxMjM0NTY3ODlhYmNkZWY";

TEST(SluicedKeyReload, AJwksFileRotatedInPlaceIsReadAgainAndOneThatDoesNotLoadKeepsTheOldKeys) {
  const std::string keys = temp_file("key_reload.jwks");
  std::ofstream(keys) << jwks("first", kFirstK);
  ReloadedSluiced sluiced("key_reload_jwks", "[auth]\nmode = \"jwt\"\njwks_file = \"" + keys + "\"\n");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string first = mint("jwks-rotation-first-key-0123456789abcdef", "first");
  const std::string second = mint("jwks-rotation-second-key-0123456789abcdef", "second");
  TestClient kept(sluiced.port());
  ASSERT_EQ(publish_with(kept, first), 200);
  ASSERT_EQ(publish_once(sluiced.port(), second), 401);

  // Not a JWKS: the reload fails whole, naming the key, and the old key
  // still verifies, on a new connection and on the kept-alive one.
  std::ofstream(keys) << "{\"keys\": not json";
  const std::string failed = sluiced.reload_report();
  EXPECT_NE(failed.find("sluiced: reload failed, kept the old value: config key 'auth.jwks_file'"), std::string::npos)
      << failed;
  EXPECT_EQ(failed.find("sluiced: reloaded\n"), std::string::npos) << failed;
  EXPECT_EQ(publish_with(kept, first), 200);
  EXPECT_EQ(publish_once(sluiced.port(), first), 200);
  EXPECT_EQ(publish_once(sluiced.port(), second), 401);

  // The same file name, new contents: read again though no setting changed.
  std::ofstream(keys) << jwks("second", kSecondK);
  const std::string rotated = sluiced.reload_report();
  EXPECT_NE(rotated.find("sluiced: reloaded\n"), std::string::npos) << rotated;
  EXPECT_EQ(publish_with(kept, first), 401);
  EXPECT_EQ(publish_once(sluiced.port(), first), 401);
  EXPECT_EQ(publish_once(sluiced.port(), second), 200);
  std::remove(keys.c_str());
}

}  // namespace
}  // namespace sluice::test
