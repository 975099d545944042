// Settings from outside: every way a setting reaches sluiced (TOML file,
// --set, --listen) goes through apply_setting(), which hands each key to
// the table that knows it (integers in int_settings, auth and broker keys
// in their own files, the words and lists here), so every value is
// checked the same way; then validate() checks the settings against each
// other.
#include "sluice/config.hpp"

#include <algorithm>
#include <cstdio>
#include <span>

#include "buf/pool.hpp"
#include "delivery/policy.hpp"
#include "io/socket.hpp"
#include "proto/http1.hpp"
#include "proto/topic_name.hpp"
#include "server/auth_config.hpp"
#include "server/broker_config.hpp"
#include "server/config_changes.hpp"
#include "server/int_settings.hpp"
#include "server/memory_shares.hpp"
#include "session/config_limits.hpp"
#include "session/host_check.hpp"
#include "session/origin_check.hpp"

namespace sluice::server {

namespace {

constexpr std::string_view kPolicyNames = "fifo, drop-oldest, drop-newest, latest, disconnect";
constexpr std::string_view kTopicRulePrefix = "policy.topics.";

std::string policy_error(std::string_view key, std::string_view got) {
  return "config key '" + std::string(key) + "' must be one of " + std::string(kPolicyNames) + " (got '" +
         std::string(got) + "')";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// "a, b,c" -> {"a", "b", "c"}; empty items are skipped.
std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= value.size();) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    if (const std::string_view item = trim(value.substr(start, comma - start)); !item.empty()) {
      items.emplace_back(item);
    }
    start = comma + 1;
  }
  return items;
}

std::optional<std::string> apply_policy_setting(PolicyConfig& policy, std::string_view key, std::string_view value) {
  if (key == "policy.allow") {
    unsigned allowed = 0;
    for (const std::string& name : split_list(value)) {
      const auto parsed = delivery::parse_policy(name);
      if (!parsed) return policy_error(key, name);
      allowed |= 1u << static_cast<unsigned>(*parsed);
    }
    policy.allowed = allowed;
    return std::nullopt;
  }
  const auto parsed = delivery::parse_policy(value);
  if (!parsed) return policy_error(key, value);
  if (key == "policy.default") {
    policy.fallback = *parsed;
    return std::nullopt;
  }
  // A pattern set again (the file's, then a --set) takes the later value,
  // as every other key does.
  const std::string_view pattern = key.substr(kTopicRulePrefix.size());
  // One that no topic could match (a '*' inside, a character no name may
  // have) would leave its topics on the default without a word.
  const std::string_view stem = pattern.ends_with('*') ? pattern.substr(0, pattern.size() - 1) : pattern;
  if (!stem.empty() && !proto::valid_topic_name(stem, proto::kTopicNameCeiling)) {
    return "config key '" + std::string(key) + "': the pattern must be a topic name ([A-Za-z0-9_.:-]) or one " +
           "followed by a single * that ends it, or * alone (got '" + std::string(pattern) + "')";
  }
  const auto same = std::find_if(policy.rules.begin(), policy.rules.end(),
                                 [&](const PolicyConfig::Rule& rule) { return rule.pattern == pattern; });
  if (same != policy.rules.end()) {
    same->policy = *parsed;
  } else {
    policy.rules.push_back({std::string(pattern), *parsed});
  }
  return std::nullopt;
}

// The ops keys that are words, not numbers. Returns nullopt when `key` is
// none of them, else the outcome (an error line, or nullopt inside).
std::optional<std::optional<std::string>> apply_ops_setting(OpsConfig& ops, std::string_view key,
                                                            std::string_view value) {
  const auto one_of = [&](std::string& field, std::initializer_list<std::string_view> names,
                          std::string_view list) -> std::optional<std::string> {
    if (std::find(names.begin(), names.end(), value) == names.end()) {
      return "config key '" + std::string(key) + "' must be one of " + std::string(list) + " (got '" +
             std::string(value) + "')";
    }
    field = std::string(value);
    return std::nullopt;
  };
  if (key == "log.level") return one_of(ops.log_level, {"debug", "info", "warn", "error"}, "debug, info, warn, error");
  if (key == "log.format") return one_of(ops.log_format, {"logfmt", "json"}, "logfmt, json");
  if (key == "metrics.path") {
    if (!value.starts_with('/') || value.size() > 128 || value.find_first_of("?# ") != std::string_view::npos) {
      return std::optional<std::string>("config key 'metrics.path' must be a path starting with / (got '" +
                                        std::string(value) + "')");
    }
    // On another route's path it would hide a topic, or be hidden itself.
    const bool taken = value == "/healthz" || value == "/sse" || value == "/ws" || value.starts_with("/sse/") ||
                       value.starts_with("/pub/") || value.starts_with("/ws/") || value.starts_with("/dashboard") ||
                       value.starts_with("/admin");
    if (taken) {
      return std::optional<std::string>("config key 'metrics.path' must not be one of the server's routes (/healthz, "
                                        "/sse, /pub/, /ws, /dashboard, /admin) (got '" + std::string(value) + "')");
    }
    ops.metrics_path = std::string(value);
    return std::optional<std::string>();
  }
  if (key == "admin.listen") {
    io::Endpoint endpoint;
    if (!value.empty() && !io::parse_endpoint(value, endpoint)) {
      return std::optional<std::string>(
          "config key 'admin.listen' must be empty or HOST:PORT, HOST an IPv4 address, [IPv6] or localhost and PORT "
          "0-65535 (got '" +
          std::string(value) + "')");
    }
    ops.admin_listen = std::string(value);
    return std::optional<std::string>();
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> apply_setting(Config& config, std::string_view key, std::string_view value) {
  if (key == "listen") {
    io::Endpoint endpoint;
    if (!io::parse_endpoint(value, endpoint)) {
      return "config key 'listen' must be HOST:PORT, HOST an IPv4 address, [IPv6] or localhost and PORT 0-65535 "
             "(got '" + std::string(value) + "')";
    }
    config.listen = std::string(value);
    return std::nullopt;
  }
  if (const IntSetting* s = find_int_setting(key)) return apply_int_setting(config, *s, value);
  if (auto ops = apply_ops_setting(config.ops, key, value)) return *ops;
  if (std::optional<std::string> error; apply_auth_setting(config, key, value, error)) return error;
  if (std::optional<std::string> error; apply_broker_setting(config.broker, key, value, error)) return error;
  if (key == "tls.cert_file" || key == "tls.key_file" || key == "tls.chain_file") {
    auto& path = key == "tls.cert_file" ? config.tls.cert_file
                 : key == "tls.key_file" ? config.tls.key_file
                                         : config.tls.chain_file;
    path = std::string(value);
    return std::nullopt;
  }
  if (key == "ws.allowed_origins") {
    std::vector<std::string> origins = split_list(value);
    for (const std::string& origin : origins) {
      if (!session::valid_origin_entry(origin)) {
        return "config key 'ws.allowed_origins' must be a comma list of origins, each SCHEME://HOST[:PORT] with no "
               "path and no default port (or null) (got '" + origin + "')";
      }
    }
    config.ws.allowed_origins = std::move(origins);
    return std::nullopt;
  }
  if (key == "ws.subprotocols") {
    std::vector<std::string> names = split_list(value);
    for (const std::string& name : names) {
      if (!proto::http1::is_token(name)) {
        return "config key 'ws.subprotocols' must be a comma list of tokens (letters, digits, !#$%&'*+-.^_`|~) "
               "(got '" + name + "')";
      }
    }
    config.ws.subprotocols = std::move(names);
    return std::nullopt;
  }
  if (key == "http.allowed_hosts") {
    std::vector<std::string> hosts = split_list(value);
    for (const std::string& host : hosts) {
      if (!session::valid_host_entry(host)) {
        return "config key 'http.allowed_hosts' must be a comma list of host names or addresses, each with an "
               "optional :PORT, or * (got '" + host + "')";
      }
    }
    config.allowed_hosts = std::move(hosts);
    return std::nullopt;
  }
  if (key == "policy.default" || key == "policy.allow" ||
      (key.starts_with(kTopicRulePrefix) && key.size() > kTopicRulePrefix.size())) {
    return apply_policy_setting(config.policy, key, value);
  }
  return "unknown config key '" + std::string(key) + "'";
}

// The most specific rule wins, whatever order the rules were set in (a
// file's keys are read sorted): `prices.eu.*` over `prices.*` for
// "prices.eu.fr", and a topic named exactly over any prefix.
Policy PolicyConfig::for_topic(std::string_view topic) const {
  const Rule* longest_prefix = nullptr;
  std::size_t longest = 0;
  for (const Rule& rule : rules) {
    const std::string_view pattern = rule.pattern;
    if (!pattern.ends_with('*')) {
      if (topic == pattern) return rule.policy;
      continue;
    }
    const std::string_view prefix = pattern.substr(0, pattern.size() - 1);
    if (topic.starts_with(prefix) && (longest_prefix == nullptr || prefix.size() > longest)) {
      longest_prefix = &rule;
      longest = prefix.size();
    }
  }
  return longest_prefix != nullptr ? longest_prefix->policy : fallback;
}

std::optional<std::string> load_config_file(Config& config, const std::string& path) {
  // The file read as a reload reads it (config_changes), then each setting
  // applied as --set applies it.
  SettingList settings;
  if (auto error = read_setting_list(path, {}, settings)) return error;
  for (const auto& [key, value] : settings) {
    if (auto error = apply_setting(config, key, value)) return error;
  }
  return std::nullopt;
}

std::optional<std::string> validate(const Config& config) {
  const TlsConfig& tls = config.tls;
  if (tls.cert_file.empty() != tls.key_file.empty() || (!tls.chain_file.empty() && tls.cert_file.empty())) {
    return "config keys 'tls.cert_file' and 'tls.key_file' must be set together (and 'tls.chain_file' only with them)";
  }
  const PoolConfig& pool = config.pool;
  if (pool.reserve >= pool.block_count) {
    return "config key 'pool.reserve' must be below pool.block_count (" + std::to_string(pool.block_count) + ")";
  }
  if (const char* error = buf::Pool::validate(session::pool_config(pool))) {
    return std::string("config key 'pool': ") + error;
  }
  // The reserve must always hold one handshake reply or error response plus
  // one control frame, or a server whose data filled the pool could not
  // answer anyone.
  constexpr std::size_t kControlNeed = 2048;
  const std::size_t reserve_needed = (kControlNeed + pool.block_size - 1) / pool.block_size;
  if (pool.reserve < reserve_needed) {
    return "config key 'pool.reserve' must be at least " + std::to_string(reserve_needed) +
           " blocks at this pool.block_size (room for a handshake reply and a control frame)";
  }
  if (config.connection.send.max_bytes < pool.block_size) {
    return "config key 'send.budget_bytes' must be at least pool.block_size (" + std::to_string(pool.block_size) +
           ")";
  }
  if (config.server_memory_bytes < static_cast<std::int64_t>(config.connection.memory_bytes)) {
    return "config key 'limits.server_bytes' must be at least limits.connection_bytes (" +
           std::to_string(config.connection.memory_bytes) + ")";
  }
  if (auto error = check_memory_shares(config)) return error;
  const auto data_blocks = static_cast<std::int64_t>(pool.block_count - pool.reserve);
  if (data_blocks < config.max_connections) {
    return "config key 'pool.block_count' must be at least max_connections + pool.reserve (" +
           std::to_string(config.max_connections + static_cast<std::int64_t>(pool.reserve)) +
           ") so that every connection can have one block";
  }
  return check_broker(config);
}

std::string describe_settings() {
  const Config defaults;
  std::string out = "listen = \"" + defaults.listen + "\"  # HOST:PORT (an IPv6 host in brackets: [::1]:8080)\n";
  out += "policy.default = \"fifo\"  # slow-consumer policy: " + std::string(kPolicyNames) + "\n";
  out += "policy.allow = \"fifo,drop-oldest,drop-newest,latest,disconnect\"  # comma list of the policies a client may "
         "ask for (?policy=); default all\n";
  out += "policy.topics.PATTERN = \"latest\"  # per-topic policy; PATTERN is a topic or a prefix ending in * (the most specific wins)\n";
  out += "ws.allowed_origins = \"\"  # comma list of Origins allowed to open a stream, publish or open a WebSocket; empty: any origin may read, none may publish (with auth.mode=jwt: the server's own only)\n";
  out += "http.allowed_hosts = \"\"  # comma list of Host names requests may carry (NAME or NAME:PORT), * for any; empty: localhost, 127.0.0.1, [::1] and the listen host when on loopback without auth, else any (421 otherwise)\n";
  out += "ws.subprotocols = \"\"  # comma list of WebSocket subprotocols offered, most preferred first\n";
  out += "metrics.path = \"/metrics\"  # where GET serves the Prometheus metrics\n";
  out += "admin.listen = \"\"  # HOST:PORT of the admin API's own listener; empty: no admin API (not loopback: needs auth.mode=jwt)\n";
  out += "log.level = \"info\"  # debug, info, warn, error\n";
  out += "log.format = \"logfmt\"  # logfmt, json\n";
  out += "tls.cert_file = \"\"  # PEM certificate (intermediates may follow); set with tls.key_file to serve TLS\n";
  out += "tls.key_file = \"\"  # PEM private key of tls.cert_file\n";
  out += "tls.chain_file = \"\"  # PEM intermediates sent after the certificate; empty: none\n";
  out += describe_int_settings();
  out += describe_auth_settings();
  out += describe_broker_settings();
  return out;
}

}  // namespace sluice::server
