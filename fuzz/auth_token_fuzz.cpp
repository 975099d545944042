// Fuzzes JwtVerifier with the input as a token, against a key ring holding
// an HS256 secret (an HMAC) and an Ed25519 key (a public-key signature), so
// both kinds of signature check see what the fuzzer makes.
//
// Invariants, abort() on violation: a result is ok exactly when its error
// is none; a refusal has a reason that is one short line of printable ASCII
// (safe to log and to send in a header, whatever the token held); only the
// corpus's one genuine token is accepted, so the fuzzer reaching another
// means a forged signature; the same input gets the same answer twice.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "auth/jwt_verifier.hpp"

namespace {

using namespace sluice::auth;

void check(bool ok) {
  if (!ok) std::abort();
}

const JwtVerifier& verifier() {
  static const JwtVerifier instance = [] {
    KeyRing ring;
    check(!ring.add_secret("the fuzz target's HS256 secret, 32+ bytes", "auth.jwt_secret"));
    // RFC 8037 Appendix A's public key.
    check(!ring.add_jwks(R"({"keys":[{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","kid":"ed",)"
                         R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})",
                         "auth.jwks_file", 8));
    JwtRules rules;
    rules.max_token_bytes = 4096;
    rules.require_exp = false;
    return JwtVerifier(std::move(ring), rules);
  }();
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view token(reinterpret_cast<const char*>(data), size);
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  const VerifiedToken first = verifier().verify(token, now);
  check(first.check.ok() == (first.check.error == TokenError::none));
  // Only the corpus's one genuine token may pass: anything else the fuzzer
  // made verify would be a forged signature.
  check(!first.check.ok() || token.find("c2VlZC1vbmx5") != std::string_view::npos);
  if (!first.check.ok()) {
    const std::string& reason = first.check.reason;
    check(!reason.empty() && reason.size() < 200);
    for (const char c : reason) check(c >= 0x20 && c < 0x7f);
  }
  const VerifiedToken second = verifier().verify(token, now);
  check(second.check.error == first.check.error && second.check.reason == first.check.reason);
  return 0;
}
