// Owns: TokenFingerprint, what a connection keeps of the token that proved
// its identity, so that its next request carrying the same token is known
// without verifying the signature and parsing the claims again.
//
// Not the token's bytes: a token may be auth.max_token_bytes long, and a
// fingerprint is a fixed 32 bytes. It is the token's length and two SipHash
// digests of it under two random 128-bit keys drawn when the authorizer is
// built: whoever does not know the keys (they never leave the process)
// cannot make a token with a given fingerprint other than by chance, one in
// 2^128 per try. That matters where one connection carries several
// clients' requests (a proxy keeping its upstream connections alive): a
// client whose token matched another's fingerprint would be taken for that
// client. Two fingerprints are compared in constant time, so how long a
// comparison takes says nothing about how much of them matched.
//
// `verifier` names the verifier that checked the token (TokenFingerprinter
// generation): a fingerprint is only ever equal to one made by the same
// fingerprinter, so a token is never taken as proven by keys and rules
// other than those that checked it: after a reload swaps the keys, a
// connection's next request is verified anew. (What the connection opened
// before, its streams and a /ws session, keeps its identity until the
// token expires: docs/SECURITY.md.)
#pragma once

#include <cstdint>
#include <string_view>

#include "auth/siphash.hpp"

namespace sluice::auth {

struct TokenFingerprint {
  std::uint64_t verifier = 0;  // 0: no token
  std::uint64_t length = 0;
  std::uint64_t digest[2] = {0, 0};

  [[nodiscard]] bool empty() const { return verifier == 0; }
};

// True when both name the same verifier and token; the time taken does not
// depend on where they differ.
[[nodiscard]] bool same_token(const TokenFingerprint& a, const TokenFingerprint& b) noexcept;

class TokenFingerprinter {
 public:
  // Fresh random keys and a generation no other fingerprinter in the
  // process has had.
  TokenFingerprinter();

  // Does not allocate.
  [[nodiscard]] TokenFingerprint of(std::string_view token) const noexcept;

 private:
  std::uint64_t generation_;
  SipKey first_;
  SipKey second_;
};

}  // namespace sluice::auth
