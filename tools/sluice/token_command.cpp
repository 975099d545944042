#include "token_command.hpp"

#include <cstdio>
#include <string>

#include "auth/jwt_mint.hpp"
#include "auth/key_ring.hpp"
#include "auth/secret_file.hpp"
#include "io/small_file.hpp"

namespace sluice::cli {

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "sluice token: %s\n", why.c_str());
  return 2;
}

}  // namespace

int run_token(const TokenOptions& given) {
  TokenOptions options = given;
  if (!options.secret_file.empty()) {
    if (auto error = auth::read_secret_file(options.secret_file, options.secret)) return fail(*error);
  }
  if (options.secret.empty() == options.key_file.empty()) {
    return fail("give exactly one of --secret, --secret-file and --key-file");
  }
  // A token that grants nothing is refused by every route: surely a slip.
  if (options.subscribe.empty() && options.publish.empty()) {
    return fail("the token would grant nothing: give --subscribe and/or --publish (a topic, PREFIX.* or *)");
  }
  auth::SigningKey key;
  if (!options.secret.empty()) {
    if (auto error = auth::signing_key_from_secret(options.secret, key)) return fail(*error);
  } else {
    std::string pem;
    if (auto error = io::read_small_file(options.key_file, auth::kMaxKeyFileBytes, pem)) return fail(*error);
    if (auto error = auth::signing_key_from_pem(pem, key)) return fail(options.key_file + ": " + *error);
  }
  key.kid = options.kid;
  auth::TokenClaims claims;
  claims.subject = options.subject;
  claims.subscribe = options.subscribe;
  claims.publish = options.publish;
  claims.audience = options.audience;
  claims.issuer = options.issuer;
  claims.claim = options.claim;
  claims.issued_at = std::chrono::system_clock::now();
  claims.ttl = std::chrono::seconds(options.ttl_s);
  std::string token;
  if (auto error = auth::mint_token(claims, key, token)) return fail(*error);
  std::printf("%s\n", token.c_str());
  return 0;
}

}  // namespace sluice::cli
