#include "auth/key_ring.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using test::jwk_of;
using test::keys;
using test::pem_of;

const std::string kSecret(32, 'k');

// A file under the test's temporary directory, removed at the end.
class TempFile {
 public:
  TempFile(std::string_view name, std::string_view contents)
      : path_(::testing::TempDir() + std::to_string(::getpid()) + "_" + std::string(name)) {
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string jwks(std::initializer_list<std::string> members) {
  std::string out = "{\"keys\":[";
  for (const std::string& m : members) out += (out.back() == '[' ? "" : ",") + m;
  return out + "]}";
}

TEST(KeyRing, LoadsEachSourceNamedInTheConfig) {
  const TempFile pem("ring.pem", pem_of(keys().p256.get(), false));
  const TempFile set("ring.jwks",
                     jwks({jwk_of(keys().rsa.get(), "RS256", "r1"), jwk_of(keys().ed25519.get(), "EdDSA", "e1")}));
  KeyRing ring;
  ASSERT_EQ(ring.load({kSecret, pem.path(), set.path()}), std::nullopt);
  EXPECT_EQ(ring.size(), 4u);
  EXPECT_EQ(ring.pinned_algs(), "HS256, ES256, RS256, EdDSA");
}

// A FIFO would hold the reader (a server's loop, at a reload) until some
// writer came; a device may never end: neither is read.
TEST(KeyRing, OnlyARegularFileIsRead) {
  const std::string fifo = ::testing::TempDir() + std::to_string(::getpid()) + "_ring.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(KeyRing().load({.secret_file = fifo}),
            "config key 'auth.jwt_secret_file': " + fifo + " is not a regular file");
  EXPECT_EQ(KeyRing().load({"", "", fifo}), "config key 'auth.jwks_file': " + fifo + " is not a regular file");
  std::remove(fifo.c_str());
  EXPECT_EQ(KeyRing().load({"", "/dev/zero", ""}),
            "config key 'auth.jwt_public_key_file': /dev/zero is not a regular file");
}

TEST(KeyRing, ErrorsNameTheConfigKey) {
  KeyRing ring;
  EXPECT_EQ(ring.load({"short", "", ""}),
            "config key 'auth.jwt_secret': it must be at least 32 bytes (got 5); HS256 is no stronger than its secret");
  const auto missing = ring.load({"", "/nonexistent/key.pem", ""});
  ASSERT_TRUE(missing);
  EXPECT_TRUE(missing->starts_with("config key 'auth.jwt_public_key_file': cannot open /nonexistent/key.pem"))
      << *missing;
  const TempFile private_pem("private.pem", pem_of(keys().rsa.get(), true));
  const auto wrong = ring.load({"", private_pem.path(), ""});
  ASSERT_TRUE(wrong);
  EXPECT_TRUE(wrong->starts_with("config key 'auth.jwt_public_key_file': the PEM holds a private key")) << *wrong;
  const TempFile bad_set("bad.jwks", jwks({jwk_of(keys().rsa.get(), "ES256", "r1")}));
  EXPECT_EQ(ring.load({"", "", bad_set.path()}),
            "config key 'auth.jwks_file': key 0 (kid 'r1') is refused: ES256 needs kty \"EC\"");
  const TempFile not_json("bad2.jwks", "[1,2]");
  EXPECT_EQ(ring.load({"", "", not_json.path()}),
            "config key 'auth.jwks_file': not a JWKS (a JSON object with a \"keys\" array)");
}

TEST(KeyRing, ASecretFileGivesItsFirstLine) {
  const TempFile file("ring.secret", kSecret + " \r\nignored\n");
  KeyRing ring;
  ASSERT_EQ(ring.load({.secret_file = file.path()}), std::nullopt);
  EXPECT_EQ(ring.pinned_algs(), "HS256");
  const TempFile empty("empty.secret", "\nsecond-line-is-not-read-0123456789abcdef\n");
  EXPECT_EQ(KeyRing().load({.secret_file = empty.path()}),
            "config key 'auth.jwt_secret_file': " + empty.path() + ": nothing on its first line");
  const TempFile short_one("short.secret", "short\n");
  EXPECT_EQ(KeyRing().load({.secret_file = short_one.path()}),
            "config key 'auth.jwt_secret_file': it must be at least 32 bytes (got 5); HS256 is no stronger than its "
            "secret");
  EXPECT_EQ(KeyRing().load({.secret = kSecret, .secret_file = file.path()}),
            "config key 'auth.jwt_secret_file': give it or auth.jwt_secret, not both");
}

TEST(KeyRing, BoundsTheJwksKeysAndFileSize) {
  KeyRing ring;
  const std::string set = jwks({jwk_of(keys().p256.get(), "ES256", "a"), jwk_of(keys().p256.get(), "ES256", "b")});
  EXPECT_EQ(ring.add_jwks(set, "auth.jwks_file", 1),
            "config key 'auth.jwks_file': it holds 2 keys, more than auth.max_keys (1)");
  const TempFile big("big.jwks", std::string(kMaxKeyFileBytes + 1, ' '));
  const auto error = ring.load({"", "", big.path()});
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("larger than"), std::string::npos) << *error;
}

TEST(KeyRing, RefusesARepeatedKid) {
  KeyRing ring;
  const std::string set = jwks({jwk_of(keys().p256.get(), "ES256", "a"), jwk_of(keys().rsa.get(), "RS256", "a")});
  EXPECT_EQ(ring.add_jwks(set, "auth.jwks_file", 64), "config key 'auth.jwks_file': kid 'a' appears twice");
}

TEST(KeyRing, AKidSelectsItsKeyAndTheAlgMustBeItsOwn) {
  KeyRing ring;
  ASSERT_EQ(ring.add_jwks(jwks({jwk_of(keys().rsa.get(), "RS256", "r"), jwk_of(keys().p256.get(), "ES256", "e")}),
                          "auth.jwks_file", 64),
            std::nullopt);
  const KeyChoice e = ring.choose("e", JwtAlg::es256);
  ASSERT_EQ(e.lookup, KeyLookup::found);
  EXPECT_EQ(e.key->kid, "e");
  EXPECT_EQ(ring.choose("r", JwtAlg::hs256).lookup, KeyLookup::alg_mismatch);
  EXPECT_EQ(ring.choose("r", JwtAlg::es256).lookup, KeyLookup::alg_mismatch);
  EXPECT_EQ(ring.choose("zzz", JwtAlg::rs256).lookup, KeyLookup::unknown_kid);
}

TEST(KeyRing, WithoutAKidOnlyAnUnambiguousKeyIsChosen) {
  KeyRing ring;
  ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
  ASSERT_EQ(ring.add_public_pem(pem_of(keys().rsa.get(), false), "auth.jwt_public_key_file"), std::nullopt);
  EXPECT_EQ(ring.choose("", JwtAlg::hs256).lookup, KeyLookup::found);
  EXPECT_EQ(ring.choose("", JwtAlg::rs256).lookup, KeyLookup::found);
  EXPECT_EQ(ring.choose("", JwtAlg::es256).lookup, KeyLookup::alg_mismatch);
  ASSERT_EQ(ring.add_jwks(jwks({jwk_of(keys().rsa_other.get(), "RS256", "second")}), "auth.jwks_file", 64),
            std::nullopt);
  EXPECT_EQ(ring.choose("", JwtAlg::rs256).lookup, KeyLookup::ambiguous);
  EXPECT_EQ(ring.choose("second", JwtAlg::rs256).lookup, KeyLookup::found);
}

TEST(KeyRing, AnUnknownKidFallsBackToTheKeysConfiguredWithoutOne) {
  KeyRing ring;
  ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
  ASSERT_EQ(ring.add_jwks(jwks({jwk_of(keys().rsa.get(), "RS256", "r")}), "auth.jwks_file", 64), std::nullopt);
  const KeyChoice secret = ring.choose("issuer-key-7", JwtAlg::hs256);
  ASSERT_EQ(secret.lookup, KeyLookup::found);
  EXPECT_TRUE(secret.key->kid.empty());
  // A JWKS key is only chosen by its own kid.
  EXPECT_EQ(ring.choose("issuer-key-7", JwtAlg::rs256).lookup, KeyLookup::alg_mismatch);
  KeyRing only_jwks;
  ASSERT_EQ(only_jwks.add_jwks(jwks({jwk_of(keys().rsa.get(), "RS256", "r")}), "auth.jwks_file", 64), std::nullopt);
  EXPECT_EQ(only_jwks.choose("other", JwtAlg::rs256).lookup, KeyLookup::unknown_kid);
}

}  // namespace
}  // namespace sluice::auth
