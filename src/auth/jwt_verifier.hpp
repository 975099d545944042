// Owns: JwtVerifier, which turns a compact JSON Web Token (RFC 7519) into
// an Identity or says in one line why it will not.
//
// The order of the checks is the point: the cheap, key-free ones first (the
// length, the shape, the header), then the choice of one key pinned to the
// header's alg, then exactly one signature check, and only then the claims,
// which are trusted only once signed. A refused token costs at most one
// signature check; a malformed one costs none.
//
// The verifier holds no clock: the caller passes `now`, so tests can stand
// anywhere in a token's life. It is immutable after construction and safe
// to share between threads.
#pragma once

#include <chrono>
#include <string_view>

#include "auth/grants.hpp"
#include "auth/jwt_claims.hpp"
#include "auth/key_ring.hpp"
#include "auth/token_error.hpp"

namespace sluice::auth {

struct VerifiedToken {
  TokenCheck check;   // ok, or why the token is refused
  Identity identity;  // filled when check.ok()
};

class JwtVerifier {
 public:
  JwtVerifier(KeyRing keys, JwtRules rules);

  [[nodiscard]] VerifiedToken verify(std::string_view token, std::chrono::system_clock::time_point now) const;

  [[nodiscard]] const JwtRules& rules() const { return rules_; }
  [[nodiscard]] const KeyRing& keys() const { return keys_; }

 private:
  struct Parts {
    std::string_view header;
    std::string_view payload;
    std::string_view signature;
    std::string_view signing_input;  // header + '.' + payload
  };

  [[nodiscard]] TokenCheck split(std::string_view token, Parts& parts) const;
  [[nodiscard]] TokenCheck choose_key(std::string_view header_b64, const JwtKey*& key) const;

  KeyRing keys_;
  JwtRules rules_;
};

}  // namespace sluice::auth
