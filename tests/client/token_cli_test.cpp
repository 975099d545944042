// `sluice token`, run as a child process: the token it prints verifies
// with the secret or key it was given and grants what it was asked to.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

#include <openssl/pem.h>

#include "auth/jwt_verifier.hpp"
#include "child_process.hpp"
#include "scratch_file.hpp"

namespace sluice::client::test {
namespace {

using namespace std::chrono_literals;
using sluice::test::ChildProcess;
using sluice::test::ScratchFile;

const std::string kSecret = "a secret for the token command, 32+ bytes";

std::string cli() {
  const std::string from_env = sluice::test::env_path("SLUICE_CLI");
  return from_env.empty() ? std::string(SLUICE_CLI_PATH) : from_env;
}

struct CliRun {
  int exit_code;
  std::string output;
};

CliRun run(std::vector<std::string> args) {
  args.insert(args.begin(), cli());
  ChildProcess child(args);
  child.read_to_end(10s);
  const int code = child.wait(10s);
  std::string out = child.output();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return {code, out};
}

auth::VerifiedToken verify(auth::KeyRing ring, const std::string& token, auth::JwtRules rules = {}) {
  return auth::JwtVerifier(std::move(ring), std::move(rules)).verify(token, std::chrono::system_clock::now());
}

TEST(TokenCli, MintsAnHs256TokenGrantingWhatItWasAsked) {
  const CliRun minted =
      run({"token", "--secret", kSecret, "--subscribe", "news", "--subscribe", "prices.*", "--publish", "prices.*",
           "--sub", "alice", "--ttl", "120", "--aud", "sluice.example", "--iss", "me"});
  ASSERT_EQ(minted.exit_code, 0) << minted.output;
  auth::KeyRing ring;
  ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
  auth::JwtRules rules;
  rules.audience = "sluice.example";
  rules.issuer = "me";
  const auth::VerifiedToken result = verify(std::move(ring), minted.output, rules);
  ASSERT_TRUE(result.check.ok()) << result.check.reason << "\n" << minted.output;
  EXPECT_EQ(result.identity.subject, "alice");
  EXPECT_TRUE(result.identity.subscribe.matches("news"));
  EXPECT_TRUE(result.identity.subscribe.matches("prices.eur"));
  EXPECT_TRUE(result.identity.publish.matches("prices.eur"));
  EXPECT_FALSE(result.identity.publish.matches("news"));
  ASSERT_TRUE(result.identity.expires);
  const auto left = *result.identity.expires - std::chrono::system_clock::now();
  EXPECT_GT(left, 60s);
  EXPECT_LE(left, 120s);
}

TEST(TokenCli, MintsWithAPrivateKeyFile) {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  ASSERT_NE(key, nullptr);
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_token_cli.pem";
  {
    FILE* file = std::fopen(path.c_str(), "w");
    PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(file);
  }
  const CliRun minted = run({"token", "--key-file", path, "--subscribe", "*"});
  std::remove(path.c_str());
  ASSERT_EQ(minted.exit_code, 0) << minted.output;
  auth::KeyRing ring;
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, key);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  ASSERT_EQ(ring.add_public_pem(std::string(data, static_cast<std::size_t>(n)), "auth.jwt_public_key_file"),
            std::nullopt);
  BIO_free(bio);
  EVP_PKEY_free(key);
  const auth::VerifiedToken result = verify(std::move(ring), minted.output);
  ASSERT_TRUE(result.check.ok()) << result.check.reason;
  EXPECT_TRUE(result.identity.subscribe.matches("anything"));
}

// The secret read from a file, out of the process list: its first line,
// as `openssl rand -hex 32 > FILE` writes it.
TEST(TokenCli, MintsWithTheSecretOfAFile) {
  const ScratchFile secret_file("token_cli_secret");
  const std::string& path = secret_file.path();
  std::ofstream(path) << kSecret << "\n";
  const CliRun minted = run({"token", "--secret-file", path, "--subscribe", "news"});
  ASSERT_EQ(minted.exit_code, 0) << minted.output;
  auth::KeyRing ring;
  ASSERT_EQ(ring.add_secret(kSecret, "auth.jwt_secret"), std::nullopt);
  const auth::VerifiedToken result = verify(std::move(ring), minted.output);
  ASSERT_TRUE(result.check.ok()) << result.check.reason << "\n" << minted.output;
  EXPECT_TRUE(result.identity.subscribe.matches("news"));

  std::ofstream(path) << "\n";
  const CliRun empty = run({"token", "--secret-file", path, "--subscribe", "news"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.output, "sluice token: " + path + ": nothing on its first line");
  const CliRun both = run({"token", "--secret", kSecret, "--secret-file", path, "--subscribe", "news"});
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

TEST(TokenCli, RefusesWhatItCannotMintWithOneLine) {
  const CliRun short_secret = run({"token", "--secret", "short", "--subscribe", "news"});
  EXPECT_EQ(short_secret.exit_code, 2);
  EXPECT_EQ(short_secret.output,
            "sluice token: the secret must be at least 32 bytes (got 5); sluiced refuses shorter ones");
  const CliRun bad_pattern = run({"token", "--secret", kSecret, "--publish", "a*"});
  EXPECT_EQ(bad_pattern.exit_code, 2);
  EXPECT_EQ(bad_pattern.output, "sluice token: --publish 'a*' is not a topic name, a 'prefix.*' or '*'");
  const CliRun neither = run({"token", "--subscribe", "news"});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_EQ(neither.output, "sluice token: give exactly one of --secret, --secret-file and --key-file");
  const CliRun missing = run({"token", "--key-file", "/nonexistent.pem", "--subscribe", "news"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("cannot open /nonexistent.pem"), std::string::npos) << missing.output;
  // Grants kept under a claim the checks read would overwrite it (the
  // expiry, the subject): a token no server takes.
  for (const char* claim : {"exp", "sub", ""}) {
    const CliRun registered = run({"token", "--secret", kSecret, "--subscribe", "a", "--claim", claim});
    EXPECT_EQ(registered.exit_code, 2) << claim;
    const std::string expected = std::string("sluice token: --claim must name the server's auth.claim, ") +
                                 "not empty nor one of exp, nbf, iat, sub, aud, iss, jti (got '" + claim + "')";
    EXPECT_EQ(registered.output, expected);
  }
  // Every route refuses a token that grants nothing: a slip, said at once.
  const CliRun nothing = run({"token", "--secret", kSecret});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_EQ(nothing.output,
            "sluice token: the token would grant nothing: give --subscribe and/or --publish (a topic, PREFIX.* or *)");
}

}  // namespace
}  // namespace sluice::client::test
