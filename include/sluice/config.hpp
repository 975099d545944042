// Owns: Config, every setting of sluiced with its default, and the table of
// keys through which a TOML file or a --set override changes it. Each key has
// an allowed range; a value outside it is refused with one line that names
// the key and the range.
//
// Every limit here bounds memory or time a client can make the server
// spend; `sluiced --help-config` lists the keys with their ranges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/policy.hpp"

namespace sluice::server {

// One HTTP/1.1 request.
struct HttpLimits {
  std::size_t max_request_line = 8192;   // bytes, without the CRLF (414 past it)
  std::size_t max_header_bytes = 16384;  // header and trailer field lines (431 past it)
  std::size_t max_headers = 64;          // header and trailer fields (431 past it)
  std::size_t max_body = 1 << 20;        // decoded body bytes (413 past it)
};

// All payload memory: block_count blocks of block_size bytes, taken at start.
struct PoolConfig {
  std::size_t block_count = 16384;  // 64 MiB at the default block size
  std::size_t block_size = 4096;    // payload bytes per block
  std::size_t reserve = 256;        // blocks only control traffic (replies, pongs, heartbeats) may use
  bool prefault = true;             // fault every page in at start, so no event waits on a fresh page
};

// One connection's send budget: what waits for a slow client.
struct SendLimits {
  std::size_t max_bytes = 1 << 20;  // data bytes queued; past it the policy decides
  std::size_t max_frames = 4096;    // data frames queued
  std::size_t max_control_frames = 16;  // replies, pongs, notices queued
};

struct ConnectionLimits {
  SendLimits send;
  std::size_t receive_budget = 1 << 20;  // input bytes held at most
  std::size_t receive_turn = 128 << 10;  // bytes read from one connection before the others' turn
};

struct TopicLimits {
  std::size_t max_topics = 10000;
  std::size_t max_topic_name = 128;
  std::size_t max_subscribers_per_topic = 100000;
  std::size_t history_events = 1000;    // per topic, for replay
  std::size_t history_bytes = 1 << 20;  // per topic
  // A topic nobody follows is freed once its newest event is this old (at
  // once when it has none), when a new topic needs its place.
  std::int64_t history_ttl_ms = 60000;
  std::size_t max_created_per_connection = 1000;  // new topics one connection may bring into being
};

// Which slow-consumer policy a subscription gets: the first rule whose
// pattern matches the topic ("prices.*" matches by prefix, anything else
// exactly), else `fallback`; a client may ask for another with ?policy=
// among the `allowed` ones.
struct PolicyConfig {
  struct Rule {
    std::string pattern;
    Policy policy;
  };
  Policy fallback = Policy::fifo;
  unsigned allowed = (1u << kPolicyCount) - 1;  // bit per Policy
  std::vector<Rule> rules;
  std::int64_t slow_retry_ms = 5000;  // `retry:` sent to a subscriber cut off as slow

  [[nodiscard]] Policy for_topic(std::string_view topic) const;
  [[nodiscard]] bool allows(Policy policy) const { return (allowed >> static_cast<unsigned>(policy)) & 1u; }
};

struct WsConfig {
  std::int64_t max_message = 1 << 20;     // bytes after inflating (1009 past it)
  std::int64_t ping_interval_ms = 30000;  // server pings a quiet connection this often
  std::int64_t pong_timeout_ms = 10000;   // and closes it if no pong comes back in time
  std::int64_t message_timeout_ms = 10000;  // a message begun must be whole by then
  std::int64_t deflate = 1;               // offer permessage-deflate
  std::int64_t client_publish = 1;        // clients may publish over WebSocket
  // The /ws JSON protocol: bounds on one request (proto::wsjson::Limits).
  std::int64_t json_max_depth = 16;
  std::int64_t json_max_string = 1 << 20;
  std::int64_t json_max_number = 32;
  std::int64_t json_max_members = 64;
  // Acks a /ws client may leave unread; at that many its input is no
  // longer read until they leave.
  std::int64_t json_max_replies = 8;
  std::vector<std::string> allowed_origins;  // empty: any
  std::vector<std::string> subprotocols;     // offered, most preferred first
};

struct Config {
  std::string listen = "127.0.0.1:8080";
  std::int64_t threads = 0;  // event loops; 0: one per core
  std::int64_t max_connections = 10000;
  std::int64_t handshake_timeout_ms = 10000;  // a whole request must arrive within this
  std::int64_t idle_timeout_ms = 60000;       // keep-alive connection with no request
  std::int64_t linger_timeout_ms = 2000;      // waiting for the peer's EOF after our close
  std::int64_t heartbeat_ms = 15000;          // SSE comment line on idle streams
  std::int64_t sse_retry_ms = 2000;           // `retry:` sent when a stream opens
  std::int64_t max_topics_per_connection = 64;
  std::int64_t per_ip_connections = 1024;     // open connections from one address
  std::int64_t tcp_notsent_lowat = 16384;     // 0 leaves the kernel default
  std::int64_t tcp_send_buffer = 0;           // SO_SNDBUF; 0 leaves the kernel default
  HttpLimits http;
  PoolConfig pool;
  ConnectionLimits connection;
  TopicLimits hub;
  PolicyConfig policy;
  WsConfig ws;
};

// Applies one "key=value" setting. Returns an error line, or nullopt.
[[nodiscard]] std::optional<std::string> apply_setting(Config& config, std::string_view key, std::string_view value);

// Reads a TOML file: tables name the first part of a key ([pool] block_size
// is pool.block_size). Returns an error line, or nullopt.
[[nodiscard]] std::optional<std::string> load_config_file(Config& config, const std::string& path);

// Rules that involve several keys (the pool must be able to hold what the
// limits allow). Returns an error line, or nullopt.
[[nodiscard]] std::optional<std::string> validate(const Config& config);

// The keys, their ranges and defaults, one per line (for --help-config).
[[nodiscard]] std::string describe_settings();

}  // namespace sluice::server
