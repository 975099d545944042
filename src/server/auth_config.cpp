// The auth.* rows of the settings table. Text keys are checked for shape
// only here (a key file is read, a secret measured and a pattern compiled
// when sluiced builds its authorizer, with errors naming the same keys).
#include "server/auth_config.hpp"

#include <charconv>
#include <cstdio>

#include "auth/jwt_claims.hpp"
#include "proto/http1.hpp"

namespace sluice::server {

namespace {

struct AuthIntSetting {
  std::string_view key;
  std::int64_t min;
  std::int64_t max;
  std::string_view help;
  std::int64_t AuthConfig::*field = nullptr;
  std::int64_t AuthRateConfig::*rate_field = nullptr;

  [[nodiscard]] std::int64_t& in(AuthConfig& auth) const { return field ? auth.*field : auth.rate.*rate_field; }
  [[nodiscard]] std::int64_t of(const AuthConfig& auth) const { return field ? auth.*field : auth.rate.*rate_field; }
};

constexpr std::int64_t kRateMax = 1'000'000;

AuthIntSetting plain(std::string_view key, std::int64_t min, std::int64_t max, std::string_view help,
                     std::int64_t AuthConfig::*field) {
  return {key, min, max, help, field, nullptr};
}

AuthIntSetting rate(std::string_view key, std::string_view help, std::int64_t AuthRateConfig::*field,
                    std::int64_t min = 0, std::int64_t max = kRateMax) {
  return {key, min, max, help, nullptr, field};
}

using A = AuthConfig;
using R = AuthRateConfig;

const AuthIntSetting kAuthInts[] = {
    plain("auth.max_keys", 1, 1024, "keys a JWKS file may hold", &A::max_keys),
    plain("auth.max_token_bytes", 256, 65536, "longest token read (401 past it)", &A::max_token_bytes),
    plain("auth.max_claims", 1, 1024, "members of a token's payload", &A::max_claims),
    plain("auth.max_patterns", 1, 4096, "topic patterns in one grants list", &A::max_patterns),
    plain("auth.clock_skew_ms", 0, 600000, "slack for exp, nbf and iat", &A::clock_skew_ms),
    plain("auth.require_exp", 0, 1, "a token must carry exp", &A::require_exp),
    plain("auth.query_token", 0, 1, "read a token from ?token= (a last resort: URLs get logged)", &A::query_token),
    plain("auth.callback_timeout_ms", 10, 60000,
          "a decision given later (the callback's) must come by then, or the client gets 503", &A::callback_timeout_ms),
    plain("auth.callback_cache_ms", 0, 3600000, "how long the callback's answers are kept (0: not kept)",
          &A::callback_cache_ms),
    plain("auth.callback_cache_entries", 0, 1000000, "callback answers kept per loop", &A::callback_cache_entries),
    plain("auth.callback_max_inflight", 1, 10000, "callback questions open per loop (503 past it)",
          &A::callback_max_inflight),
    plain("auth.callback_max_reply_bytes", 256, 65536, "longest callback reply head (503 past it)",
          &A::callback_max_reply_bytes),
    rate("auth.rate.connect_per_ip", "requests per second per client address (0: no limit)", &R::connect_per_ip),
    rate("auth.rate.connect_per_ip_burst", "", &R::connect_per_ip_burst, 1),
    rate("auth.rate.connect_per_identity", "requests per second per token subject", &R::connect_per_identity),
    rate("auth.rate.connect_per_identity_burst", "", &R::connect_per_identity_burst, 1),
    rate("auth.rate.subscribe_per_ip", "subscriptions per second per client address", &R::subscribe_per_ip),
    rate("auth.rate.subscribe_per_ip_burst", "", &R::subscribe_per_ip_burst, 1),
    rate("auth.rate.subscribe_per_identity", "subscriptions per second per token subject",
         &R::subscribe_per_identity),
    rate("auth.rate.subscribe_per_identity_burst", "", &R::subscribe_per_identity_burst, 1),
    rate("auth.rate.publish_per_ip", "publishes per second per client address", &R::publish_per_ip),
    rate("auth.rate.publish_per_ip_burst", "", &R::publish_per_ip_burst, 1),
    rate("auth.rate.publish_per_identity", "publishes per second per token subject", &R::publish_per_identity),
    rate("auth.rate.publish_per_identity_burst", "", &R::publish_per_identity_burst, 1),
    rate("auth.rate.table_entries", "rate buckets kept, 16 bytes each", &R::table_entries, 8, 1 << 24),
};

struct AuthTextSetting {
  std::string_view key;
  std::string_view help;
  std::string AuthConfig::*field;
};

const AuthTextSetting kAuthTexts[] = {
    {"auth.jwt_secret", "HS256 shared secret, at least 32 bytes", &A::jwt_secret},
    {"auth.jwt_secret_file", "file whose first line is the HS256 secret (keeps it out of the config)",
     &A::jwt_secret_file},
    {"auth.jwt_public_key_file", "PEM public key: RS256, ES256/384/512 or EdDSA by its type", &A::jwt_public_key_file},
    {"auth.jwks_file", "JWKS file, every key naming its alg", &A::jwks_file},
    {"auth.audience", "when set, a token's aud must hold it", &A::audience},
    {"auth.issuer", "when set, a token's iss must equal it", &A::issuer},
    {"auth.claim", "the claim holding a token's grants", &A::claim},
    {"auth.cookie_name", "cookie a browser's token comes in (empty: none)", &A::cookie_name},
    {"auth.callback_url", "http://host:port/path asked whether a client may subscribe or publish", &A::callback_url},
};

constexpr std::string_view kModes = "none, open, jwt, callback";

std::optional<std::string> apply_mode(AuthConfig& auth, std::string_view value) {
  if (value == "none") {
    auth.mode = AuthMode::none;
  } else if (value == "open") {
    auth.mode = AuthMode::open;
  } else if (value == "jwt") {
    auth.mode = AuthMode::jwt;
  } else if (value == "callback") {
    auth.mode = AuthMode::callback;
  } else {
    return "config key 'auth.mode' must be one of " + std::string(kModes) + " (got '" + std::string(value) + "')";
  }
  return std::nullopt;
}

std::string_view mode_name(AuthMode mode) {
  switch (mode) {
    case AuthMode::none: return "none";
    case AuthMode::open: return "open";
    case AuthMode::jwt: return "jwt";
    case AuthMode::callback: return "callback";
  }
  return "?";
}

std::vector<std::string> split_patterns(std::string_view value) {
  std::vector<std::string> items;
  while (!value.empty()) {
    const std::size_t comma = std::min(value.find(','), value.size());
    std::string_view item = value.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    value.remove_prefix(std::min(comma + 1, value.size()));
  }
  return items;
}

}  // namespace

bool apply_auth_setting(Config& config, std::string_view key, std::string_view value,
                        std::optional<std::string>& error) {
  AuthConfig& auth = config.auth;
  if (key == "auth.mode") {
    error = apply_mode(auth, value);
    return true;
  }
  if (key == "auth.callback_headers") {
    auth.callback_headers = split_patterns(value);
    return true;
  }
  if (key == "auth.anonymous_subscribe" || key == "auth.anonymous_publish") {
    (key == "auth.anonymous_subscribe" ? auth.anonymous_subscribe : auth.anonymous_publish) = split_patterns(value);
    return true;
  }
  // Names that go into a header (a cookie's, a claim's) must be one: a
  // cookie name with ';' or a space would never match what a browser sends.
  if (key == "auth.cookie_name" && !value.empty() && !proto::http1::is_token(value)) {
    error = "config key 'auth.cookie_name' must be empty or a token (letters, digits, !#$%&'*+-.^_`|~) (got '" +
            std::string(value) + "')";
    return true;
  }
  if (key == "auth.claim" && (value.empty() || auth::is_registered_claim(value))) {
    error = "config key 'auth.claim' must name the claim holding a token's grants, not one of exp, nbf, iat, sub, aud, "
            "iss, jti (got '" + std::string(value) + "')";
    return true;
  }
  for (const AuthTextSetting& s : kAuthTexts) {
    if (s.key != key) continue;
    auth.*s.field = std::string(value);
    return true;
  }
  for (const AuthIntSetting& s : kAuthInts) {
    if (s.key != key) continue;
    std::int64_t parsed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (ec != std::errc() || end != value.data() + value.size() || parsed < s.min || parsed > s.max) {
      error = "config key '" + std::string(key) + "' must be an integer between " + std::to_string(s.min) + " and " +
              std::to_string(s.max) + " (got '" + std::string(value) + "')";
    } else {
      s.in(auth) = parsed;
    }
    return true;
  }
  return false;
}

std::string describe_auth_settings() {
  const AuthConfig defaults;
  std::string out = "auth.mode = \"" + std::string(mode_name(defaults.mode)) + "\"  # " + std::string(kModes) +
                    ": none listens on loopback only, open on any address without checks, jwt wants tokens, callback asks auth.callback_url\n";
  for (const AuthTextSetting& s : kAuthTexts) {
    out += std::string(s.key) + " = \"" + defaults.*s.field + "\"  # " + std::string(s.help) + "\n";
  }
  out += "auth.anonymous_subscribe = \"\"  # comma list of topic patterns (news, prices.*, *) anyone may read\n";
  out += "auth.anonymous_publish = \"\"  # comma list of topic patterns anyone may publish to\n";
  out += "auth.callback_headers = \"\"  # comma list of request headers passed on to auth.callback_url (Cookie always is)\n";
  for (const AuthIntSetting& s : kAuthInts) {
    char line[256];
    std::snprintf(line, sizeof line, "%-28s = %-10lld # %s [%lld..%lld]\n", std::string(s.key).c_str(),
                  static_cast<long long>(s.of(defaults)),
                  s.help.empty() ? "tokens a full bucket holds" : std::string(s.help).c_str(),
                  static_cast<long long>(s.min), static_cast<long long>(s.max));
    out += line;
  }
  return out;
}

}  // namespace sluice::server
