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

TokenCheck check_times(const json& claims, const JwtRules& rules, std::int64_t now_ms, Identity& out) {
  const std::int64_t skew = rules.clock_skew.count();
  std::int64_t at = 0;
  if (const auto exp = claims.find("exp"); exp != claims.end()) {
    if (!numeric_date(*exp, at)) return token_refused(TokenError::bad_claim, "exp is not a NumericDate");
    if (now_ms >= at + skew) return token_refused(TokenError::expired, "token expired");
    out.expires = std::chrono::system_clock::time_point(milliseconds(at));
  } else if (rules.require_exp) {
    return token_refused(TokenError::missing_exp, "token has no exp and auth.require_exp is set");
  }
  if (const auto nbf = claims.find("nbf"); nbf != claims.end()) {
    if (!numeric_date(*nbf, at)) return token_refused(TokenError::bad_claim, "nbf is not a NumericDate");
    if (now_ms + skew < at) return token_refused(TokenError::not_yet_valid, "token not valid yet (nbf)");
  }
  if (const auto iat = claims.find("iat"); iat != claims.end()) {
    if (!numeric_date(*iat, at)) return token_refused(TokenError::bad_claim, "iat is not a NumericDate");
    if (at > now_ms + skew) return token_refused(TokenError::issued_in_future, "token issued in the future (iat)");
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
  const auto now_ms = std::chrono::duration_cast<milliseconds>(now.time_since_epoch()).count();
  if (TokenCheck check = check_times(claims, rules, now_ms, out); !check.ok()) return check;
  if (TokenCheck check = check_audience_and_issuer(claims, rules); !check.ok()) return check;
  if (const auto sub = claims.find("sub"); sub != claims.end()) {
    if (!sub->is_string()) return token_refused(TokenError::bad_claim, "sub is not a string");
    out.subject = sub->get<std::string>();
  }
  return read_grants(claims, rules, out);
}

}  // namespace sluice::auth
