// sluice's tokens against PyJWT (Debian's python3-jwt), an implementation
// that shares no code with it: what PyJWT signs, sluice accepts (and the
// unsigned token PyJWT will make, sluice refuses); what sluice mints, PyJWT
// accepts. The peer is tests/peers/jwt_peer.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "auth/jwt_mint.hpp"
#include "auth/jwt_verifier.hpp"
#include "child_process.hpp"
#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using namespace std::chrono_literals;
using test::keys;
using test::pem_of;

const std::filesystem::path kPeer =
    std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers" / "jwt_peer.py";
const std::string kPython = "/usr/bin/python3";  // the one Debian's python3-jwt is installed for
const std::string kSecret = "a secret both sides share, over 32 bytes";

class KeyFile {
 public:
  KeyFile(std::string_view name, const std::string& pem)
      : path_(::testing::TempDir() + std::to_string(::getpid()) + "_" + std::string(name)) {
    std::ofstream(path_) << pem;
  }
  ~KeyFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct PeerRun {
  int exit_code;
  std::string output;
};

PeerRun peer(std::vector<std::string> args) {
  args.insert(args.begin(), {kPython, kPeer.string()});
  sluice::test::ChildProcess child(args);
  child.read_to_end(30s);
  const int code = child.wait(30s);
  std::string out = child.output();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return {code, out};
}

class JwtInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    const PeerRun probe = peer({"mint", "--alg", "HS256", "--secret", kSecret});
    ASSERT_EQ(probe.exit_code, 0) << "PyJWT is missing (python3-jwt, python3-cryptography; make test installs them): "
                                  << probe.output;
  }
};

TEST_F(JwtInterop, SluiceAcceptsWhatPyJwtSigns) {
  struct Case {
    const char* alg;
    EVP_PKEY* key;  // null: the shared secret
  };
  for (const Case& c : {Case{"HS256", nullptr}, Case{"RS256", keys().rsa.get()}, Case{"ES256", keys().p256.get()},
                        Case{"EdDSA", keys().ed25519.get()}}) {
    KeyRing ring;
    PeerRun minted;
    if (c.key == nullptr) {
      ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
      minted = peer({"mint", "--alg", c.alg, "--secret", kSecret});
    } else {
      const KeyFile private_key("interop_private.pem", pem_of(c.key, true));
      ASSERT_EQ(ring.add_public_pem(pem_of(c.key, false), "auth.jwt_public_key_file"), std::nullopt);
      minted = peer({"mint", "--alg", c.alg, "--key", private_key.path()});
    }
    ASSERT_EQ(minted.exit_code, 0) << minted.output;
    const VerifiedToken result =
        JwtVerifier(std::move(ring), {}).verify(minted.output, std::chrono::system_clock::now());
    ASSERT_TRUE(result.check.ok()) << c.alg << ": " << result.check.reason;
    EXPECT_EQ(result.identity.subject, "pyjwt");
    EXPECT_TRUE(result.identity.subscribe.matches("news"));
    EXPECT_TRUE(result.identity.publish.matches("prices.eur"));
  }
}

TEST_F(JwtInterop, SluiceRefusesPyJwtsUnsignedToken) {
  const PeerRun minted = peer({"mint", "--alg", "none"});
  ASSERT_EQ(minted.exit_code, 0) << minted.output;
  KeyRing ring;
  ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
  EXPECT_EQ(JwtVerifier(std::move(ring), {}).verify(minted.output, std::chrono::system_clock::now()).check.error,
            TokenError::alg_none);
}

TEST_F(JwtInterop, PyJwtAcceptsWhatSluiceMints) {
  struct Case {
    const char* alg;
    EVP_PKEY* key;
  };
  for (const Case& c : {Case{"HS256", nullptr}, Case{"RS256", keys().rsa.get()}, Case{"ES256", keys().p256.get()},
                        Case{"EdDSA", keys().ed25519.get()}}) {
    SigningKey key;
    ASSERT_EQ(c.key == nullptr ? signing_key_from_secret(kSecret, key) : signing_key_from_pem(pem_of(c.key, true), key),
              std::nullopt);
    TokenClaims claims;
    claims.subject = "sluice";
    claims.subscribe = {"*"};
    claims.audience = "aud.example";
    claims.issued_at = std::chrono::system_clock::now();
    std::string token;
    ASSERT_EQ(mint_token(claims, key, token), std::nullopt);
    PeerRun checked;
    if (c.key == nullptr) {
      checked = peer({"verify", "--alg", c.alg, "--secret", kSecret, "--aud", "aud.example", token});
    } else {
      const KeyFile public_key("interop_public.pem", pem_of(c.key, false));
      checked = peer({"verify", "--alg", c.alg, "--key", public_key.path(), "--aud", "aud.example", token});
    }
    ASSERT_EQ(checked.exit_code, 0) << c.alg << ": " << checked.output;
    const nlohmann::json payload = nlohmann::json::parse(checked.output);
    EXPECT_EQ(payload["sub"], "sluice") << c.alg;
    EXPECT_EQ(payload["sluice"]["subscribe"], nlohmann::json::array({"*"})) << c.alg;
  }
}

}  // namespace
}  // namespace sluice::auth
