// The settings table: one row per key, with its range and the field it sets.
// Every way a setting reaches sluiced (TOML file, --set, --listen) goes
// through apply_setting(), so every value is range-checked the same way.
#include "sluice/config.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <span>
#include <toml++/toml.h>

#include "buf/pool.hpp"
#include "delivery/policy.hpp"
#include "io/socket.hpp"
#include "proto/topic_name.hpp"
#include "server/auth_config.hpp"
#include "server/broker_config.hpp"
#include "session/config_limits.hpp"

namespace sluice::server {

namespace {

template <auto First, auto... Rest>
constexpr auto& field(auto& object) {
  if constexpr (sizeof...(Rest) == 0) {
    return object.*First;
  } else {
    return field<Rest...>(object.*First);
  }
}

template <auto... Path>
void set_field(Config& config, std::int64_t value) {
  auto& target = field<Path...>(config);
  target = static_cast<std::remove_reference_t<decltype(target)>>(value);
}

template <auto... Path>
std::int64_t get_field(const Config& config) {
  return static_cast<std::int64_t>(field<Path...>(config));
}

struct IntSetting {
  std::string_view key;
  std::int64_t min;
  std::int64_t max;
  std::string_view help;
  void (*set)(Config&, std::int64_t);
  std::int64_t (*get)(const Config&);
};

template <auto... Path>
constexpr IntSetting int_setting(std::string_view key, std::int64_t min, std::int64_t max, std::string_view help) {
  return IntSetting{key, min, max, help, &set_field<Path...>, &get_field<Path...>};
}

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;
constexpr std::int64_t kHour = 3600 * 1000;

using C = Config;

const IntSetting kIntSettings[] = {
    int_setting<&C::threads>("threads", 0, 64, "event loops, one thread each (0: one per core)"),
    int_setting<&C::max_connections>("max_connections", 1, 1'000'000, "open connections at most"),
    int_setting<&C::http, &HttpLimits::max_request_line>("http.max_request_line", 64, kMiB,
                                                                    "request line bytes (414 past it)"),
    int_setting<&C::http, &HttpLimits::max_header_bytes>("http.max_header_bytes", 256, kMiB,
                                                                    "header section bytes (431 past it)"),
    int_setting<&C::http, &HttpLimits::max_headers>("http.max_headers", 4, 1000,
                                                               "header fields (431 past it)"),
    int_setting<&C::http, &HttpLimits::max_body>("http.max_body", 0, 64 * kMiB,
                                                            "request body bytes (413 past it)"),
    int_setting<&C::handshake_timeout_ms>("timeouts.handshake_ms", 100, kHour,
                                          "a request must arrive whole within this (408 past it)"),
    int_setting<&C::idle_timeout_ms>("timeouts.idle_ms", 100, 24 * kHour, "keep-alive connection without a request"),
    int_setting<&C::linger_timeout_ms>("timeouts.linger_ms", 0, 60000, "wait for the peer's EOF after closing"),
    int_setting<&C::heartbeat_ms>("sse.heartbeat_ms", 100, kHour, "comment line sent to every SSE stream"),
    int_setting<&C::sse_retry_ms>("sse.retry_ms", 0, 24 * kHour, "reconnect delay sent when a stream opens"),
    int_setting<&C::max_topics_per_connection>("topics.max_per_connection", 1, 10000, "topics one stream may join"),
    int_setting<&C::hub, &TopicLimits::max_topics>("topics.max", 1, 10'000'000, "topics at most"),
    int_setting<&C::hub, &TopicLimits::max_topic_name>("topics.max_name", 1,
                                                       static_cast<std::int64_t>(proto::kTopicNameCeiling),
                                                       "topic name bytes"),
    int_setting<&C::hub, &TopicLimits::max_subscribers_per_topic>("topics.max_subscribers", 1, 10'000'000,
                                                                     "subscribers of one topic"),
    int_setting<&C::hub, &TopicLimits::history_events>("history.max_events", 0, 1'000'000,
                                                          "events kept per topic for replay (0: none)"),
    int_setting<&C::hub, &TopicLimits::history_bytes>("history.max_bytes", 0, 1024 * kMiB,
                                                         "bytes kept per topic for replay"),
    int_setting<&C::hub, &TopicLimits::history_ttl_ms>("history.ttl_ms", 0, 24 * kHour,
                                                       "an unfollowed topic's events kept at least this long"),
    int_setting<&C::hub, &TopicLimits::max_created_per_connection>("topics.max_created_per_connection", 1,
                                                                      10'000'000, "new topics one connection may make"),
    int_setting<&C::per_ip_connections>("limits.per_ip_connections", 1, 1'000'000,
                                        "open connections from one address (503 past it)"),
    int_setting<&C::connection, &ConnectionLimits::memory_bytes>(
        "limits.connection_bytes", 64 * 1024, 1024 * kMiB,
        "bytes one connection's buffers outside the pool may hold past their resting size (1009/413 past it)"),
    int_setting<&C::server_memory_bytes>("limits.server_bytes", kMiB, 1024 * 1024 * kMiB,
                                         "bytes all connections' buffers outside the pool may hold (1009/503 past it)"),
    int_setting<&C::pool, &PoolConfig::block_count>("pool.block_count", 2, 1 << 24, "payload blocks"),
    int_setting<&C::pool, &PoolConfig::block_size>("pool.block_size", 64, 16 * kMiB, "bytes per block"),
    int_setting<&C::pool, &PoolConfig::reserve>("pool.reserve", 1, 1 << 24, "blocks only control frames use"),
    int_setting<&C::pool, &PoolConfig::prefault>("pool.prefault", 0, 1,
                                                      "fault the whole pool in at start (0: as blocks are first used)"),
    int_setting<&C::connection, &ConnectionLimits::send, &SendLimits::max_bytes>(
        "send.budget_bytes", 64, 1024 * kMiB, "data bytes queued per connection"),
    int_setting<&C::connection, &ConnectionLimits::send, &SendLimits::max_frames>(
        "send.budget_frames", 1, 1 << 20, "data frames queued per connection"),
    int_setting<&C::connection, &ConnectionLimits::send, &SendLimits::max_control_frames>(
        "send.control_frames", 2, 1024, "control frames queued per connection"),
    int_setting<&C::connection, &ConnectionLimits::receive_budget>("receive.budget_bytes", 1024, 1024 * kMiB,
                                                                   "input bytes held per connection"),
    int_setting<&C::connection, &ConnectionLimits::receive_turn>("receive.turn_bytes", 1024, 1024 * kMiB,
                                                                 "bytes read from one connection before others' turn"),
    int_setting<&C::tcp_notsent_lowat>("tcp.notsent_lowat", 0, 64 * kMiB,
                                       "unsent bytes left in the kernel (0: kernel default)"),
    int_setting<&C::tcp_send_buffer>("tcp.send_buffer", 0, 64 * kMiB, "SO_SNDBUF (0: kernel default)"),
    int_setting<&C::ws, &WsConfig::max_message>("ws.max_message", 125, 64 * kMiB,
                                                "WebSocket message bytes after inflating (1009 past it)"),
    int_setting<&C::ws, &WsConfig::ping_interval_ms>("ws.ping_interval_ms", 100, kHour, "ping a quiet WebSocket"),
    int_setting<&C::ws, &WsConfig::pong_timeout_ms>("ws.pong_timeout_ms", 100, kHour, "close if no pong by then"),
    int_setting<&C::ws, &WsConfig::message_timeout_ms>("ws.message_timeout_ms", 100, kHour,
                                                       "a WebSocket message begun must be whole by then (1008)"),
    int_setting<&C::ws, &WsConfig::deflate>("ws.deflate", 0, 1, "offer permessage-deflate"),
    int_setting<&C::ws, &WsConfig::client_publish>("ws.client_publish", 0, 1, "clients may publish over WebSocket"),
    int_setting<&C::ws, &WsConfig::json_max_depth>("ws.json_max_depth", 1, 64, "/ws request nesting"),
    int_setting<&C::ws, &WsConfig::json_max_string>("ws.json_max_string", 128, 64 * kMiB,
                                                    "/ws request string bytes as written"),
    int_setting<&C::ws, &WsConfig::json_max_number>("ws.json_max_number", 1, 1024, "/ws request number characters"),
    int_setting<&C::ws, &WsConfig::json_max_members>("ws.json_max_members", 9, 65536,
                                                     "/ws request members of one object or array"),
    int_setting<&C::ws, &WsConfig::json_max_replies>("ws.json_max_replies", 1, 512,
                                                     "/ws acks left unread before its input is paused"),
    int_setting<&C::policy, &PolicyConfig::slow_retry_ms>("policy.slow_retry_ms", 0, 24 * kHour,
                                                          "reconnect delay sent to a subscriber cut off as slow"),
    int_setting<&C::ops, &OpsConfig::metrics>("metrics.enabled", 0, 1, "serve the Prometheus metrics"),
    int_setting<&C::ops, &OpsConfig::dashboard>("dashboard.enabled", 0, 1,
                                                "serve GET /dashboard and publish $sys snapshots"),
    int_setting<&C::ops, &OpsConfig::sys_interval_ms>("dashboard.interval_ms", 100, 60000,
                                                      "one $sys snapshot this often"),
    int_setting<&C::ops, &OpsConfig::sys_max_topics>("dashboard.max_topics", 0, 1000,
                                                     "busiest topics in a $sys snapshot"),
    int_setting<&C::ops, &OpsConfig::admin_max_topics>("admin.max_topics", 1, 100000,
                                                       "topics listed in one admin reply at most"),
    int_setting<&C::ops, &OpsConfig::admin_history_events>("admin.history_events", 1, 10000,
                                                           "newest kept events listed in one topic's admin reply"),
    int_setting<&C::ops, &OpsConfig::admin_drain_timeout_ms>("admin.drain_timeout_ms", 0, kHour,
                                                             "a drain exits by then, its clients gone or not"),
    int_setting<&C::ops, &OpsConfig::log_access>("log.access", 0, 1, "one log line per request"),
    int_setting<&C::ops, &OpsConfig::log_max_line>("log.max_line", 256, 4095, "bytes per log line"),
    int_setting<&C::policy, &PolicyConfig::latest_window_frames>(
        "policy.latest_window_frames", 0, 1024,
        "latest: frames between sluice and a slow reader's application, kernel queues included (0: no bound)"),
    int_setting<&C::tls, &TlsConfig::handshake_timeout_ms>("tls.handshake_timeout_ms", 100, kHour,
                                                           "a TLS handshake must be complete by then (closed past it)"),
    int_setting<&C::tls, &TlsConfig::min_version>("tls.min_version", 12, 13, "oldest TLS version: 12 (1.2) or 13 (1.3)"),
    int_setting<&C::h2, &H2Config::enabled>("h2.enabled", 0, 1, "serve HTTP/2 (ALPN h2 over TLS, h2c by prior knowledge)"),
    int_setting<&C::h2, &H2Config::max_concurrent_streams>("h2.max_concurrent_streams", 1, 10000,
                                                           "HTTP/2 streams open at once (refused past it)"),
    int_setting<&C::h2, &H2Config::max_header_list_bytes>("h2.max_header_list_bytes", 256, kMiB,
                                                          "HTTP/2 request header list (431 past it)"),
    int_setting<&C::h2, &H2Config::stream_window>("h2.stream_window", kKiB, 16 * kMiB,
                                                  "bytes a client may send on one stream before it is read"),
    int_setting<&C::h2, &H2Config::connection_window>("h2.connection_window", 64 * kKiB, 1024 * kMiB,
                                                      "the same across all streams of a connection"),
    int_setting<&C::h2, &H2Config::max_frames_per_second>("h2.max_frames_per_second", 10, 1'000'000,
                                                          "control frames a client may send per second (GOAWAY past it)"),
    int_setting<&C::h2, &H2Config::max_session_bytes>("h2.max_session_bytes", 64 * kKiB, 64 * kMiB,
                                                      "HTTP/2 library memory per connection (GOAWAY past it)"),
    int_setting<&C::broker, &BrokerSettings::max_len>("broker.max_len", 0, 10'000'000,
                                                      "MAXLEN ~ of every topic's stream (0: history.max_events)"),
    int_setting<&C::broker, &BrokerSettings::connect_timeout_ms>("broker.connect_timeout_ms", 10, 60000,
                                                                 "connect and PING to Redis within this"),
    int_setting<&C::broker, &BrokerSettings::request_timeout_ms>(
        "broker.request_timeout_ms", 10, 60000, "a Redis request unanswered by then closes its connection"),
    int_setting<&C::broker, &BrokerSettings::max_pending>("broker.max_pending", 1, 65536,
                                                          "requests waiting per Redis connection (503 past it)"),
    int_setting<&C::broker, &BrokerSettings::max_pending_bytes>(
        "broker.max_pending_bytes", 4 * kKiB, 1024 * kMiB, "command bytes waiting per Redis connection (503 past it)"),
    int_setting<&C::broker, &BrokerSettings::max_reply_bytes>("broker.max_reply_bytes", 64 * kKiB, 1024 * kMiB,
                                                              "one Redis answer, built"),
    int_setting<&C::broker, &BrokerSettings::reconnect_min_ms>("broker.reconnect_min_ms", 1, 60000,
                                                               "first back-off before reconnecting to Redis"),
    int_setting<&C::broker, &BrokerSettings::reconnect_max_ms>("broker.reconnect_max_ms", 1, 60000,
                                                               "longest back-off before reconnecting to Redis"),
    int_setting<&C::broker, &BrokerSettings::read_max_topics>("broker.read_max_topics", 1, 16'777'215,
                                                              "topics one loop reads from one Redis"),
    int_setting<&C::broker, &BrokerSettings::read_count>("broker.read_count", 1, 10000,
                                                         "entries per topic per XREAD"),
    int_setting<&C::broker, &BrokerSettings::read_block_ms>("broker.read_block_ms", 1, 60000,
                                                            "how long Redis holds an XREAD with nothing new"),
};

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
  } else {
    policy.rules.push_back({std::string(key.substr(kTopicRulePrefix.size())), *parsed});
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
    ops.metrics_path = std::string(value);
    return std::optional<std::string>();
  }
  if (key == "admin.listen") {
    io::Endpoint endpoint;
    if (!value.empty() && !io::parse_endpoint(value, endpoint)) {
      return std::optional<std::string>(
          "config key 'admin.listen' must be empty or HOST:PORT with a port between 0 and 65535 (got '" +
          std::string(value) + "')");
    }
    ops.admin_listen = std::string(value);
    return std::optional<std::string>();
  }
  return std::nullopt;
}

const IntSetting* find_int_setting(std::string_view key) {
  for (const IntSetting& s : kIntSettings) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::string range_error(const IntSetting& s, std::string_view got) {
  return "config key '" + std::string(s.key) + "' must be an integer between " + std::to_string(s.min) + " and " +
         std::to_string(s.max) + " (got '" + std::string(got) + "')";
}

std::optional<std::string> apply_int(Config& config, const IntSetting& s, std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < s.min || value > s.max) {
    return range_error(s, text);
  }
  s.set(config, value);
  return std::nullopt;
}

std::optional<std::string> apply_node(Config& config, const std::string& key, const toml::node& node) {
  if (const auto* table = node.as_table()) {
    for (const auto& [name, child] : *table) {
      const std::string child_key = key.empty() ? std::string(name.str()) : key + "." + std::string(name.str());
      if (auto error = apply_node(config, child_key, child)) return error;
    }
    return std::nullopt;
  }
  if (const auto* integer = node.as_integer()) return apply_setting(config, key, std::to_string(integer->get()));
  if (const auto* text = node.as_string()) return apply_setting(config, key, text->get());
  return "config key '" + key + "' has a value of the wrong type";
}

}  // namespace

std::optional<std::string> apply_setting(Config& config, std::string_view key, std::string_view value) {
  if (key == "listen") {
    io::Endpoint endpoint;
    if (!io::parse_endpoint(value, endpoint)) {
      return "config key 'listen' must be HOST:PORT with a port between 0 and 65535 (got '" + std::string(value) +
             "')";
    }
    config.listen = std::string(value);
    return std::nullopt;
  }
  if (const IntSetting* s = find_int_setting(key)) return apply_int(config, *s, value);
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
  if (key == "ws.allowed_origins" || key == "ws.subprotocols") {
    auto& list = key == "ws.allowed_origins" ? config.ws.allowed_origins : config.ws.subprotocols;
    list = split_list(value);
    return std::nullopt;
  }
  if (key == "policy.default" || key == "policy.allow" ||
      (key.starts_with(kTopicRulePrefix) && key.size() > kTopicRulePrefix.size())) {
    return apply_policy_setting(config.policy, key, value);
  }
  return "unknown config key '" + std::string(key) + "'";
}

Policy PolicyConfig::for_topic(std::string_view topic) const {
  for (const Rule& rule : rules) {
    const std::string_view pattern = rule.pattern;
    const bool prefix = pattern.ends_with('*');
    if (prefix ? topic.starts_with(pattern.substr(0, pattern.size() - 1)) : topic == pattern) return rule.policy;
  }
  return fallback;
}

std::optional<std::string> load_config_file(Config& config, const std::string& path) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& error) {
    return "config file " + path + ":" + std::to_string(error.source().begin.line) + ": " +
           std::string(error.description());
  }
  return apply_node(config, "", table);
}

std::optional<std::string> validate(const Config& config) {
  const TlsConfig& tls = config.tls;
  if (tls.cert_file.empty() != tls.key_file.empty() || (!tls.chain_file.empty() && tls.cert_file.empty())) {
    return "config keys 'tls.cert_file' and 'tls.key_file' must be set together (and 'tls.chain_file' only with them)";
  }
  const PoolConfig& pool = config.pool;
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
  std::string out = "listen = \"" + defaults.listen + "\"  # HOST:PORT\n";
  out += "policy.default = \"fifo\"  # slow-consumer policy: " + std::string(kPolicyNames) + "\n";
  out += "policy.allow = \"...\"  # comma list of the policies a client may ask for (?policy=); default all\n";
  out += "policy.topics.PATTERN = \"latest\"  # per-topic policy; PATTERN is a topic or a prefix ending in *\n";
  out += "ws.allowed_origins = \"\"  # comma list of Origins allowed to open a stream, publish or open a WebSocket; empty: any origin may read, none may publish (with auth.mode=jwt: the server's own only)\n";
  out += "ws.subprotocols = \"\"  # comma list of WebSocket subprotocols offered, most preferred first\n";
  out += "metrics.path = \"/metrics\"  # where GET serves the Prometheus metrics\n";
  out += "admin.listen = \"\"  # HOST:PORT of the admin API's own listener; empty: no admin API (not loopback: needs auth.mode=jwt)\n";
  out += "log.level = \"info\"  # debug, info, warn, error\n";
  out += "log.format = \"logfmt\"  # logfmt, json\n";
  out += "tls.cert_file = \"\"  # PEM certificate (intermediates may follow); set with tls.key_file to serve TLS\n";
  out += "tls.key_file = \"\"  # PEM private key of tls.cert_file\n";
  out += "tls.chain_file = \"\"  # PEM intermediates sent after the certificate; empty: none\n";
  for (const IntSetting& s : kIntSettings) {
    char line[256];
    std::snprintf(line, sizeof line, "%-28s = %-10lld # %s [%lld..%lld]\n", std::string(s.key).c_str(),
                  static_cast<long long>(s.get(defaults)), std::string(s.help).c_str(),
                  static_cast<long long>(s.min), static_cast<long long>(s.max));
    out += line;
  }
  out += describe_auth_settings();
  out += describe_broker_settings();
  return out;
}

}  // namespace sluice::server
