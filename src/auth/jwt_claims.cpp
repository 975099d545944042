#include "auth/jwt_claims.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace sluice::auth {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// NumericDates are clamped to about ±250 years around 1970, so that neither
// the arithmetic below nor a system_clock time point (nanoseconds) overflows.
constexpr double kMaxDateSeconds = 8e9;

// A NumericDate in milliseconds since the epoch; false when not a number.
bool numeric_date(const json& value, std::int64_t& ms) {
  if (!value.is_number()) return false;
  const double seconds = std::clamp(value.get<double>(), -kMaxDateSeconds, kMaxDateSeconds);
  ms = static_cast<std::int64_t>(std::floor(seconds * 1000.0));
  return true;
}

// The three comparisons, shared by the first check and by every reuse of
// a verified token (check_token_times), so both answer alike.
bool expired_at(std::int64_t exp_ms, std::int64_t now_ms, std::int64_t skew) { return now_ms >= exp_ms + skew; }
bool early_at(std::int64_t nbf_ms, std::int64_t now_ms, std::int64_t skew) { return now_ms + skew < nbf_ms; }
bool issued_after(std::int64_t iat_ms, std::int64_t now_ms, std::int64_t skew) { return iat_ms > now_ms + skew; }

TokenCheck refused_expired() { return token_refused(TokenError::expired, "token expired"); }
TokenCheck refused_early() { return token_refused(TokenError::not_yet_valid, "token not valid yet (nbf)"); }
TokenCheck refused_future() {
  return token_refused(TokenError::issued_in_future, "token issued in the future (iat)");
}

std::chrono::system_clock::time_point at_ms(std::int64_t ms) {
  return std::chrono::system_clock::time_point(milliseconds(ms));
}

std::int64_t ms_of(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

TokenCheck check_times(const json& claims, const JwtRules& rules, std::int64_t now_ms, Identity& out) {
  const std::int64_t skew = rules.clock_skew.count();
  std::int64_t at = 0;
  if (const auto exp = claims.find("exp"); exp != claims.end()) {
    if (!numeric_date(*exp, at)) return token_refused(TokenError::bad_claim, "exp is not a NumericDate");
    if (expired_at(at, now_ms, skew)) return refused_expired();
    out.expires = at_ms(at);
  } else if (rules.require_exp) {
    return token_refused(TokenError::missing_exp, "token has no exp and auth.require_exp is set");
  }
  if (const auto nbf = claims.find("nbf"); nbf != claims.end()) {
    if (!numeric_date(*nbf, at)) return token_refused(TokenError::bad_claim, "nbf is not a NumericDate");
    if (early_at(at, now_ms, skew)) return refused_early();
    out.not_before = at_ms(at);
  }
  if (const auto iat = claims.find("iat"); iat != claims.end()) {
    if (!numeric_date(*iat, at)) return token_refused(TokenError::bad_claim, "iat is not a NumericDate");
    if (issued_after(at, now_ms, skew)) return refused_future();
    out.issued_at = at_ms(at);
  }
  return {};
}

bool audience_holds(const json& aud, const std::string& wanted) {
  if (aud.is_string()) return aud.get_ref<const std::string&>() == wanted;
  return aud.is_array() && std::any_of(aud.begin(), aud.end(), [&](const json& one) {
           return one.is_string() && one.get_ref<const std::string&>() == wanted;
         });
}

TokenCheck check_audience_and_issuer(const json& claims, const JwtRules& rules) {
  const auto aud = claims.find("aud");
  if (aud != claims.end() && rules.audience.empty()) {
    return token_refused(TokenError::wrong_audience, "token names an audience (aud) and auth.audience is not set");
  }
  if (!rules.audience.empty()) {
    if (aud == claims.end()) return token_refused(TokenError::wrong_audience, "token has no aud; auth.audience is set");
    if (!audience_holds(*aud, rules.audience)) {
      return token_refused(TokenError::wrong_audience, "aud does not name auth.audience");
    }
  }
  if (!rules.issuer.empty()) {
    const auto iss = claims.find("iss");
    if (iss == claims.end() || !iss->is_string() || iss->get_ref<const std::string&>() != rules.issuer) {
      return token_refused(TokenError::wrong_issuer, "iss is not auth.issuer");
    }
  }
  return {};
}

TokenCheck read_patterns(const json& grants, const char* list_name, const JwtRules& rules, TopicPatterns& out) {
  const auto list = grants.find(list_name);
  if (list == grants.end()) return {};
  const std::string where = "claim " + rules.claim + "." + list_name;
  if (!list->is_array()) return token_refused(TokenError::bad_claim, where + " is not an array");
  if (list->size() > rules.max_patterns) {
    return token_refused(TokenError::too_many_patterns, where + " lists " + std::to_string(list->size()) +
                                                            " patterns, more than auth.max_patterns (" +
                                                            std::to_string(rules.max_patterns) + ")");
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& pattern = (*list)[i];
    if (!pattern.is_string() || !out.add(pattern.get_ref<const std::string&>(), rules.max_topic_name)) {
      return token_refused(TokenError::bad_claim,
                           where + ": entry " + std::to_string(i) + " is not a topic name, a 'prefix.*' or '*'");
    }
  }
  return {};
}

TokenCheck read_grants(const json& claims, const JwtRules& rules, Identity& out) {
  const auto grants = claims.find(rules.claim);
  if (grants == claims.end()) return {};
  if (!grants->is_object()) return token_refused(TokenError::bad_claim, "claim " + rules.claim + " is not an object");
  if (TokenCheck check = read_patterns(*grants, "subscribe", rules, out.subscribe); !check.ok()) return check;
  return read_patterns(*grants, "publish", rules, out.publish);
}

}  // namespace

TokenCheck check_claims(std::string_view payload, const JwtRules& rules, std::chrono::system_clock::time_point now,
                        Identity& out) {
  const json claims = json::parse(payload, nullptr, false);
  if (claims.is_discarded() || !claims.is_object()) {
    return token_refused(TokenError::malformed, "payload is not a JSON object");
  }
  if (claims.size() > rules.max_claims) {
    return token_refused(TokenError::too_many_claims, "payload has " + std::to_string(claims.size()) +
                                                          " claims, more than auth.max_claims (" +
                                                          std::to_string(rules.max_claims) + ")");
  }
  const std::int64_t now_ms = ms_of(now);
  if (TokenCheck check = check_times(claims, rules, now_ms, out); !check.ok()) return check;
  if (TokenCheck check = check_audience_and_issuer(claims, rules); !check.ok()) return check;
  if (const auto sub = claims.find("sub"); sub != claims.end()) {
    if (!sub->is_string()) return token_refused(TokenError::bad_claim, "sub is not a string");
    out.subject = sub->get<std::string>();
  }
  return read_grants(claims, rules, out);
}

TokenCheck check_token_times(const Identity& identity, const JwtRules& rules,
                             std::chrono::system_clock::time_point now) {
  const std::int64_t skew = rules.clock_skew.count();
  const std::int64_t now_ms = ms_of(now);
  if (identity.expires && expired_at(ms_of(*identity.expires), now_ms, skew)) return refused_expired();
  if (identity.not_before && early_at(ms_of(*identity.not_before), now_ms, skew)) return refused_early();
  if (identity.issued_at && issued_after(ms_of(*identity.issued_at), now_ms, skew)) return refused_future();
  return {};
}

}  // namespace sluice::auth
