// Owns: Config, every setting of sluiced with its default, and the table of
// keys through which a TOML file or a --set override changes it. Each key has
// an allowed range; a value outside it is refused with one line that names
// the key and the range.
//
// Every limit here bounds memory or time a client can make the server
// spend; `sluiced --help-config` lists the keys with their ranges. Two
// configs compare field by field (==), which is how a test sees which
// fields a reload's merge changed.
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
  bool operator==(const HttpLimits&) const = default;
};

// All payload memory: block_count blocks of block_size bytes, taken at start.
struct PoolConfig {
  std::size_t block_count = 16384;  // 64 MiB at the default block size
  std::size_t block_size = 4096;    // payload bytes per block
  std::size_t reserve = 256;        // blocks only control traffic (replies, pongs, heartbeats) may use
  bool prefault = true;             // fault every page in at start, so no event waits on a fresh page
  bool operator==(const PoolConfig&) const = default;
};

// One connection's send budget: what waits for a slow client.
struct SendLimits {
  std::size_t max_bytes = 1 << 20;  // data bytes queued; past it the policy decides
  std::size_t max_frames = 4096;    // data frames queued
  std::size_t max_control_frames = 16;  // replies, pongs, notices queued
  bool operator==(const SendLimits&) const = default;
};

struct ConnectionLimits {
  SendLimits send;
  // Input bytes held at most: by default the largest body (max_body) with
  // the largest head (max_request_line and max_header_bytes) beside it, and
  // room for the line ends and a chunked body's framing of a few chunks.
  std::size_t receive_budget = (1 << 20) + 8192 + 16384 + 64;
  std::size_t receive_turn = 128 << 10;  // bytes read from one connection before the others' turn
  // Bytes one loop reads from all its connections in one tick; past it, a
  // connection with more waiting reads one chunk and queues for the next.
  std::size_t receive_tick = 1 << 20;
  // Bytes one connection's buffers outside the pool may hold past their
  // resting size (input, a WebSocket message or chunked body being joined).
  std::size_t memory_bytes = 2 << 20;
  bool operator==(const ConnectionLimits&) const = default;
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
  std::size_t max_per_address = 1000;  // topics one address may be the first to follow and keep; 0: no limit
  bool operator==(const TopicLimits&) const = default;
};

// Which slow-consumer policy a subscription gets: the rule naming the topic
// exactly, else the rule with the longest matching prefix ("prices.*"
// matches by prefix, anything else exactly), else `fallback`; a client may
// ask for another with ?policy= among the `allowed` ones.
struct PolicyConfig {
  struct Rule {
    std::string pattern;
    Policy policy;
    bool operator==(const Rule&) const = default;
  };
  Policy fallback = Policy::fifo;
  unsigned allowed = (1u << kPolicyCount) - 1;  // bit per Policy
  std::vector<Rule> rules;
  std::int64_t slow_retry_ms = 5000;  // `retry:` sent to a subscriber cut off as slow
  // Under `latest`: data frames let past sluice's own queue that the reader's
  // application may not have read yet, kernel queues included (0: no bound).
  std::int64_t latest_window_frames = 1;
  // Under `latest`: padding (bytes its application skips) a connection's
  // reader may be sent while its window stands still, to show whether it
  // has read what the window still counts: bytes a second after a first
  // 64 KiB, one budget per connection. 0: none, and a reader whose kernel
  // narrowed its buffer may then wait for good for a frame that would fit.
  std::int64_t latest_padding_bytes_per_s = 16 << 10;

  [[nodiscard]] Policy for_topic(std::string_view topic) const;
  [[nodiscard]] bool allows(Policy policy) const { return (allowed >> static_cast<unsigned>(policy)) & 1u; }
  bool operator==(const PolicyConfig&) const = default;
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
  bool operator==(const WsConfig&) const = default;
};

// What sluiced shows the people who run it: the metrics and dashboard
// routes, the admin listener and the log.
struct OpsConfig {
  std::int64_t metrics = 1;               // serve GET /metrics
  std::string metrics_path = "/metrics";  // where Prometheus scrapes
  std::int64_t dashboard = 1;             // serve GET /dashboard and publish the $sys snapshots
  std::int64_t sys_interval_ms = 1000;    // one $sys snapshot this often
  std::int64_t sys_max_topics = 20;       // busiest topics in a snapshot
  std::string admin_listen;               // HOST:PORT of the admin API's own listener; empty: none
  std::int64_t admin_max_topics = 1000;   // topics listed in one admin reply at most (?limit=)
  std::int64_t admin_max_connections = 1000;  // connections listed in one admin reply at most (?limit=)
  std::int64_t admin_history_events = 100;  // kept events shown in one topic's admin reply
  std::int64_t admin_drain_timeout_ms = 30000;  // POST /admin/drain: exit by then, clients gone or not
  std::string log_level = "info";         // debug, info, warn, error
  std::string log_format = "logfmt";      // logfmt, json
  std::int64_t log_access = 0;            // one line per request
  std::int64_t log_max_line = 2048;       // bytes per log line
  bool operator==(const OpsConfig&) const = default;
};

// Who may connect, subscribe and publish (docs/SECURITY.md). Read by
// sluiced, which builds its authorizer from it; an embedding application
// installs its own with Server::authorize.
enum class AuthMode : std::uint8_t {
  none,  // no checks, and sluiced listens on loopback only
  open,  // no checks, on any address: the operator said so
  jwt,   // JSON Web Tokens grant topics; anonymous_* open some to anyone
  callback,  // an HTTP callback (callback_url) says who may subscribe and publish
};

// Token buckets per client address and per token subject (0: no limit).
struct AuthRateConfig {
  std::int64_t connect_per_ip = 50, connect_per_ip_burst = 100;
  std::int64_t connect_per_identity = 20, connect_per_identity_burst = 40;
  std::int64_t subscribe_per_ip = 200, subscribe_per_ip_burst = 400;
  std::int64_t subscribe_per_identity = 100, subscribe_per_identity_burst = 200;
  std::int64_t publish_per_ip = 10000, publish_per_ip_burst = 20000;
  std::int64_t publish_per_identity = 10000, publish_per_identity_burst = 20000;
  std::int64_t table_entries = 65536;  // buckets, 16 bytes each
  bool operator==(const AuthRateConfig&) const = default;
};

struct AuthConfig {
  AuthMode mode = AuthMode::none;
  std::string jwt_secret;           // HS256, at least 32 bytes
  std::string jwt_secret_file;      // its first line is the HS256 secret (not with jwt_secret)
  std::string jwt_public_key_file;  // PEM: RS256, ES256/384/512 or EdDSA by key type
  std::string jwks_file;            // {"keys":[...]}, each key naming its alg
  std::int64_t max_keys = 64;
  std::int64_t max_token_bytes = 8192;
  std::int64_t max_claims = 64;
  std::int64_t max_patterns = 64;
  std::int64_t clock_skew_ms = 30000;
  std::int64_t require_exp = 1;
  std::string audience;
  std::string issuer;
  std::string claim = "sluice";
  std::string cookie_name = "sluice_token";  // empty: cookies are not read
  std::int64_t query_token = 1;              // ?token= accepted
  std::vector<std::string> anonymous_subscribe;
  std::vector<std::string> anonymous_publish;
  AuthRateConfig rate;
  // The authorization callback (sluiced: auth.mode=callback, or jwt with a
  // callback_url to ask it after the token allows).
  std::string callback_url;                   // http://host:port/path
  std::vector<std::string> callback_headers;  // request headers passed on to it (Cookie always is)
  // How long a connection waits for a decision given later, the
  // callback's or any authorizer's (AuthReply): 503 past it.
  std::int64_t callback_timeout_ms = 2000;
  std::int64_t callback_cache_ms = 5000;         // answers kept (0: none)
  std::int64_t callback_cache_entries = 10000;   // per loop
  std::int64_t callback_max_inflight = 64;       // questions open per loop: 503 past it
  std::int64_t callback_max_reply_bytes = 8192;  // the callback's reply head: 503 past it
  bool operator==(const AuthConfig&) const = default;
};

// TLS on the listening port. No certificate: plain TCP.
struct TlsConfig {
  std::string cert_file;   // PEM: the certificate (intermediates may follow); empty: no TLS
  std::string key_file;    // PEM: its private key
  std::string chain_file;  // PEM: intermediates sent after the certificate; empty: none
  std::int64_t handshake_timeout_ms = 5000;  // a TLS handshake must be complete by then, or the connection closes
  std::int64_t min_version = 12;             // 12: TLS 1.2 and 1.3; 13: TLS 1.3 only

  [[nodiscard]] bool enabled() const { return !cert_file.empty(); }
  bool operator==(const TlsConfig&) const = default;
};

// HTTP/2 on the listening port: by ALPN over TLS, by prior knowledge (h2c)
// in clear text. Each limit bounds what one connection can make the server
// hold or do.
struct H2Config {
  std::int64_t enabled = 1;                    // 0: HTTP/1.1 only (ALPN offers only http/1.1)
  std::int64_t max_concurrent_streams = 100;   // streams open at once (RST_STREAM(REFUSED_STREAM) past it)
  std::int64_t max_header_list_bytes = 16384;  // a request's header list (431 past it)
  std::int64_t stream_window = 65535;          // bytes a client may send on one stream before it is read
  std::int64_t connection_window = 1 << 20;    // the same across all streams of a connection
  std::int64_t max_frames_per_second = 1000;   // frames carrying no request or body (GOAWAY past it)
  std::int64_t max_session_bytes = 1 << 20;    // the HTTP/2 library's memory per connection (GOAWAY past it)
  // Pool blocks all request bodies still arriving may hold at once, across
  // the server (503 past it); 0: a quarter of the pool's data blocks, and
  // at least the blocks of one http.max_body.
  std::int64_t body_blocks = 0;
  bool operator==(const H2Config&) const = default;
};

// Several nodes sharing their topics through Redis Streams
// (docs/BROKER.md). No url: no broker, the node is the single-process
// server it always was.
struct BrokerSettings {
  std::vector<std::string> urls;  // redis://ADDRESS[:PORT], in shard order
  std::string prefix = "sluice:";  // a topic's stream is PREFIX + TOPIC
  std::int64_t max_len = 0;        // MAXLEN ~ of every stream; 0: history.max_events
  std::int64_t connect_timeout_ms = 1000;
  std::int64_t request_timeout_ms = 2000;
  std::int64_t max_pending = 1024;              // per connection
  std::int64_t max_pending_bytes = 8 << 20;     // per connection
  std::int64_t max_reply_bytes = 64 << 20;      // per connection
  std::int64_t reconnect_min_ms = 100;
  std::int64_t reconnect_max_ms = 5000;
  std::int64_t read_max_topics = 10000;  // per reader
  std::int64_t read_count = 100;
  std::int64_t read_block_ms = 1000;
  // A subscriber with no id of a topic this node has not read yet gets its
  // answer once the reader has found the topic in Redis; past this, with
  // Redis still unreachable, it gets a refusal instead (503, an error ack).
  std::int64_t placement_timeout_ms = 5000;

  [[nodiscard]] bool enabled() const { return !urls.empty(); }
  bool operator==(const BrokerSettings&) const = default;
};

struct Config {
  std::string listen = "127.0.0.1:8080";
  std::int64_t threads = 0;  // event loops; 0: one per core
  // 1: the loops run under Linux's SCHED_BATCH (io/batch_scheduling.hpp):
  // a loop woken by a publisher thread on its core lets it run on, then
  // drains in one go. Less CPU per event; a loop that shares its core with
  // a busy thread may start a few milliseconds later. The thread that
  // calls Server::run (loop 0) runs under it until run() returns, and what
  // it starts meanwhile inherits it; a thread under a policy other than
  // the normal one is left as it is.
  std::int64_t sched_batch = 0;
  std::int64_t max_connections = 10000;
  std::int64_t handshake_timeout_ms = 10000;  // a whole request must arrive within this
  std::int64_t idle_timeout_ms = 60000;       // keep-alive connection with no request
  std::int64_t linger_timeout_ms = 2000;      // waiting for the peer's EOF after our close
  std::int64_t heartbeat_ms = 15000;          // SSE comment line on idle streams
  std::int64_t sse_retry_ms = 2000;           // `retry:` sent when a stream opens
  std::int64_t max_topics_per_connection = 64;
  std::int64_t per_ip_connections = 1024;     // open connections from one address
  // What all connections' buffers outside the pool may hold together, past
  // their resting sizes (ConnectionLimits::memory_bytes is one connection's).
  std::int64_t server_memory_bytes = std::int64_t{1} << 30;
  // The part of it held for TLS records read while the rest is full; 0: a
  // sixteenth of it. None without TLS.
  std::int64_t tls_record_reserve_bytes = 0;
  std::int64_t tcp_notsent_lowat = 16384;     // 0 leaves the kernel default
  std::int64_t tcp_send_buffer = 0;           // SO_SNDBUF; 0 leaves the kernel default
  HttpLimits http;
  // http.allowed_hosts: the Host (or :authority) names requests may carry,
  // `*` for any. Empty: the loopback names when the server listens on
  // loopback without an authorizer, else any (docs/SECURITY.md).
  std::vector<std::string> allowed_hosts;
  PoolConfig pool;
  // While the pool refuses data, a stream whose reader has taken no data
  // frame for this long lets go of what it queued and is cut off as a slow
  // consumer: readers that stopped reading cannot hold the pool against
  // every publisher. 0: never.
  std::int64_t pool_shed_after_ms = 1000;
  ConnectionLimits connection;
  TopicLimits hub;
  PolicyConfig policy;
  WsConfig ws;
  OpsConfig ops;
  AuthConfig auth;
  TlsConfig tls;
  H2Config h2;
  BrokerSettings broker;
  bool operator==(const Config&) const = default;
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
