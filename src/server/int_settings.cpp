// The integer settings: one row per key, with its range, its help line and
// the field of Config it sets. A key is checked against its row's range
// before anything is set, so a bad value never reaches a running server.
#include "server/int_settings.hpp"

#include <charconv>
#include <cstdio>

#include "proto/topic_name.hpp"
#include "server/auth_config.hpp"
#include "server/broker_config.hpp"
#include "server/config_field.hpp"

namespace sluice::server {

namespace {

template <auto... Path>
void set_field(Config& config, std::int64_t value) {
  auto& target = field<Path...>(config);
  target = static_cast<std::remove_reference_t<decltype(target)>>(value);
}

template <auto... Path>
std::int64_t get_field(const Config& config) {
  return static_cast<std::int64_t>(field<Path...>(config));
}

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
    int_setting<&C::sched_batch>("sched_batch", 0, 1,
                                 "loops under SCHED_BATCH: a woken loop lets a publisher on its core run on (Linux)"),
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
    int_setting<&C::hub, &TopicLimits::max_per_address>(
        "topics.max_per_address", 0, 10'000'000,
        "topics one address may be the first to follow, while they stand (429 past it; 0: no limit)"),
    int_setting<&C::per_ip_connections>("limits.per_ip_connections", 1, 1'000'000,
                                        "open connections from one address (503 past it)"),
    int_setting<&C::connection, &ConnectionLimits::memory_bytes>(
        "limits.connection_bytes", 64 * 1024, 1024 * kMiB,
        "bytes one connection's buffers outside the pool may hold past their resting size (1009/413 past it)"),
    int_setting<&C::server_memory_bytes>("limits.server_bytes", kMiB, 1024 * 1024 * kMiB,
                                         "bytes all connections' buffers outside the pool may hold (1009/503 past it)"),
    int_setting<&C::tls_record_reserve_bytes>(
        "limits.tls_record_reserve_bytes", 0, 512 * 1024 * kMiB,
        "bytes of limits.server_bytes only TLS records read while the rest is full may take (0: a sixteenth of it; "
        "at most half)"),
    int_setting<&C::pool, &PoolConfig::block_count>("pool.block_count", 2, 1 << 24, "payload blocks"),
    int_setting<&C::pool, &PoolConfig::block_size>("pool.block_size", 64, 16 * kMiB, "bytes per block"),
    int_setting<&C::pool, &PoolConfig::reserve>("pool.reserve", 1, 1 << 24, "blocks only control frames use"),
    int_setting<&C::pool, &PoolConfig::prefault>("pool.prefault", 0, 1,
                                                      "fault the whole pool in at start (0: as blocks are first used)"),
    int_setting<&C::pool_shed_after_ms>("pool.shed_after_ms", 0, kHour,
                                        "while the pool refuses data, cut off streams whose reader stopped or "
                                        "fell behind for this long (0: never)"),
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
    int_setting<&C::connection, &ConnectionLimits::receive_tick>(
        "receive.tick_bytes", 16 * kKiB, 1024 * kMiB,
        "bytes one loop reads from all its connections per tick (then one chunk each, in turn)"),
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
    int_setting<&C::ops, &OpsConfig::admin_max_connections>("admin.max_connections", 1, 100000,
                                                            "connections listed in one admin reply at most"),
    int_setting<&C::ops, &OpsConfig::admin_history_events>("admin.history_events", 1, 10000,
                                                           "newest kept events listed in one topic's admin reply"),
    int_setting<&C::ops, &OpsConfig::admin_drain_timeout_ms>("admin.drain_timeout_ms", 0, kHour,
                                                             "a drain exits by then, its clients gone or not"),
    int_setting<&C::ops, &OpsConfig::log_access>("log.access", 0, 1, "one log line per request"),
    int_setting<&C::ops, &OpsConfig::log_max_line>("log.max_line", 256, 4095, "bytes per log line"),
    int_setting<&C::policy, &PolicyConfig::latest_window_frames>(
        "policy.latest_window_frames", 0, 1024,
        "latest: frames between sluice and a slow reader's application, kernel queues included (0: no bound)"),
    int_setting<&C::policy, &PolicyConfig::latest_padding_bytes_per_s>(
        "policy.latest_padding_bytes_per_s", 0, 1 << 20,
        "latest: padding a connection's stalled reader may be sent, bytes/s after a first 64 KiB "
        "(0: none; a reader whose buffer narrowed may then stall)"),
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
    int_setting<&C::h2, &H2Config::body_blocks>(
        "h2.body_blocks", 0, 1 << 24,
        "pool blocks all HTTP/2 request bodies still arriving may hold at once (503 past it; 0: a quarter of the "
        "pool's data blocks, at least one http.max_body's)"),
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
    int_setting<&C::broker, &BrokerSettings::placement_timeout_ms>(
        "broker.placement_timeout_ms", 10, 60000,
        "a new subscriber waits this long for its topic's place in Redis (then 503, or an error ack)"),
};

std::string range_error(const IntSetting& s, std::string_view got) {
  return "config key '" + std::string(s.key) + "' must be an integer between " + std::to_string(s.min) + " and " +
         std::to_string(s.max) + " (got '" + std::string(got) + "')";
}

}  // namespace

const IntSetting* find_int_setting(std::string_view key) {
  for (const IntSetting& s : kIntSettings) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::optional<std::string> apply_int_setting(Config& config, const IntSetting& s, std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < s.min || value > s.max) {
    return range_error(s, text);
  }
  s.set(config, value);
  return std::nullopt;
}

std::string describe_int_settings() {
  const Config defaults;
  std::string out;
  for (const IntSetting& s : kIntSettings) {
    char line[256];
    std::snprintf(line, sizeof line, "%-28s = %-10lld # %s [%lld..%lld]\n", std::string(s.key).c_str(),
                  static_cast<long long>(s.get(defaults)), std::string(s.help).c_str(),
                  static_cast<long long>(s.min), static_cast<long long>(s.max));
    out += line;
  }
  return out;
}

}  // namespace sluice::server
