#include "auth/jwt_verifier.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "auth/ascii.hpp"
#include "auth/jwt_key.hpp"
#include "auth/jwt_signature.hpp"
#include "proto/base64url.hpp"

namespace sluice::auth {

namespace {

using nlohmann::json;

bool is_none(std::string_view alg) {
  return alg.size() == 4 && std::equal(alg.begin(), alg.end(), "none", [](char a, char b) { return (a | 0x20) == b; });
}

// The kinds of token sluice takes: a plain JWT, or an OAuth access token
// (typ at+jwt); "application/" may be left out, and case does not matter.
// Another kind signed by the same key (a logout token, say) is not an
// access token and must not pass for one.
bool accepted_typ(std::string_view typ) {
  if (typ.size() > 12 && ascii_iequals(typ.substr(0, 12), "application/")) typ.remove_prefix(12);
  return ascii_iequals(typ, "JWT") || ascii_iequals(typ, "at+jwt");
}

// An alg from the header may appear in a reason only when it is short and
// plain: a header is the sender's text.
std::string quoted_alg(std::string_view alg) {
  const bool plain = !alg.empty() && alg.size() <= 16 && std::all_of(alg.begin(), alg.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
  return plain ? "alg " + std::string(alg) : std::string("its alg");
}

TokenCheck malformed(std::string reason) { return token_refused(TokenError::malformed, std::move(reason)); }

}  // namespace

JwtVerifier::JwtVerifier(KeyRing keys, JwtRules rules) : keys_(std::move(keys)), rules_(std::move(rules)) {}

VerifiedToken JwtVerifier::verify(std::string_view token, std::chrono::system_clock::time_point now) const {
  VerifiedToken out;
  Parts parts;
  if (out.check = split(token, parts); !out.check.ok()) return out;
  const JwtKey* key = nullptr;
  if (out.check = choose_key(parts.header, key); !out.check.ok()) return out;
  switch (check_signature(*key, parts.signing_input, parts.signature)) {
    case SignatureCheck::valid: break;
    case SignatureCheck::invalid:
      out.check = token_refused(TokenError::bad_signature, "signature does not verify");
      return out;
    case SignatureCheck::out_of_memory:
      out.check = token_refused(TokenError::out_of_memory, "out of memory checking the signature");
      return out;
  }
  std::string payload;
  if (!proto::base64url_decode(parts.payload, payload)) {
    out.check = malformed("payload is not base64url");
    return out;
  }
  out.check = check_claims(payload, rules_, now, out.identity);
  if (!out.check.ok()) out.identity = Identity{};
  return out;
}

TokenCheck JwtVerifier::split(std::string_view token, Parts& parts) const {
  if (token.size() > rules_.max_token_bytes) {
    return token_refused(TokenError::too_long, "token is " + std::to_string(token.size()) +
                                                   " bytes, more than auth.max_token_bytes (" +
                                                   std::to_string(rules_.max_token_bytes) + ")");
  }
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return malformed("token is not three dot-separated parts");
  }
  parts.header = token.substr(0, first);
  parts.payload = token.substr(first + 1, second - first - 1);
  parts.signature = token.substr(second + 1);
  parts.signing_input = token.substr(0, second);
  if (parts.header.empty() || parts.payload.empty()) return malformed("token has an empty header or payload");
  return {};
}

TokenCheck JwtVerifier::choose_key(std::string_view header_b64, const JwtKey*& key) const {
  std::string text;
  if (!proto::base64url_decode(header_b64, text)) return malformed("header is not base64url");
  const json header = json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) return malformed("header is not a JSON object");
  // RFC 7515 §4.1.11: extensions listed in crit must be understood, and
  // sluice understands none (an unencoded payload, b64:false, among them).
  if (header.contains("crit")) return malformed("header lists crit extensions, which sluice does not support");
  if (const auto typ = header.find("typ"); typ != header.end()) {
    if (!typ->is_string() || !accepted_typ(typ->get_ref<const std::string&>())) {
      return malformed("header typ is not JWT or at+jwt");
    }
  }
  const auto alg_it = header.find("alg");
  if (alg_it == header.end() || !alg_it->is_string()) return malformed("header has no alg");
  const std::string& alg_text = alg_it->get_ref<const std::string&>();
  if (is_none(alg_text)) return token_refused(TokenError::alg_none, "unsigned tokens (alg none) are never accepted");
  const auto alg = parse_jwt_alg(alg_text);
  if (!alg) return token_refused(TokenError::alg_unsupported, quoted_alg(alg_text) + " is not supported");
  std::string_view kid;
  if (const auto kid_it = header.find("kid"); kid_it != header.end()) {
    if (!kid_it->is_string() || kid_it->get_ref<const std::string&>().empty() ||
        kid_it->get_ref<const std::string&>().size() > kMaxKidBytes) {
      return malformed("header kid is not a short string");
    }
    kid = kid_it->get_ref<const std::string&>();
  }
  const KeyChoice choice = keys_.choose(kid, *alg);
  switch (choice.lookup) {
    case KeyLookup::found: key = choice.key; return {};
    case KeyLookup::unknown_kid: return token_refused(TokenError::unknown_kid, "no configured key has the token's kid");
    case KeyLookup::ambiguous:
      return token_refused(TokenError::ambiguous_key,
                           "token names no kid and several keys are pinned to " + std::string(jwt_alg_name(*alg)));
    case KeyLookup::alg_mismatch: break;
  }
  std::string pinned =
      choice.key != nullptr ? std::string(jwt_alg_name(choice.key->alg)) : keys_.pinned_algs(!kid.empty());
  return token_refused(TokenError::alg_mismatch,
                       "token alg " + std::string(jwt_alg_name(*alg)) + " is not the key's (" + pinned + ")");
}

}  // namespace sluice::auth
