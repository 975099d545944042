#include "server/live_settings.hpp"

#include <utility>

#include "server/config_field.hpp"

namespace sluice::server {

namespace {

struct LiveSetting {
  std::string_view key;  // ending in '.': every key under it
  void (*copy)(Config& to, const Config& from);
};

template <auto... Path>
void copy_field(Config& to, const Config& from) {
  field<Path...>(to) = field<Path...>(from);
}

template <auto... Path>
constexpr LiveSetting live(std::string_view key) {
  return LiveSetting{key, &copy_field<Path...>};
}

using C = Config;
using H = HttpLimits;
using S = SendLimits;
using L = ConnectionLimits;
using W = WsConfig;
using P = PolicyConfig;
using O = OpsConfig;
using H2 = H2Config;
using R = AuthRateConfig;
using A = AuthConfig;

template <auto Field>
constexpr LiveSetting live_rate(std::string_view key) {
  return live<&C::auth, &AuthConfig::rate, Field>(key);
}

// Where each is read: per request or connection through the loop's copy of
// the config (LoopServices), or by the loop's timers, which a reload
// re-arms (the sweep, the SSE heartbeat), or by the logger; the limits
// every loop shares (the per-address count, the server's memory cap, the
// authorizer's rates) are set in place by apply_live_settings; the
// authorizer's keys and claim rules are loaded anew from the auth.* keys
// and swapped in whole (token_authorizer.hpp).
constexpr LiveSetting kLiveSettings[] = {
    live<&C::max_connections>("max_connections"),
    live<&C::per_ip_connections>("limits.per_ip_connections"),
    live<&C::server_memory_bytes>("limits.server_bytes"),
    live<&C::tls_record_reserve_bytes>("limits.tls_record_reserve_bytes"),
    live<&C::policy, &P::latest_window_frames>("policy.latest_window_frames"),
    live<&C::policy, &P::latest_padding_bytes_per_s>("policy.latest_padding_bytes_per_s"),
    live<&C::pool_shed_after_ms>("pool.shed_after_ms"),
    live_rate<&R::connect_per_ip>("auth.rate.connect_per_ip"),
    live_rate<&R::connect_per_ip_burst>("auth.rate.connect_per_ip_burst"),
    live_rate<&R::connect_per_identity>("auth.rate.connect_per_identity"),
    live_rate<&R::connect_per_identity_burst>("auth.rate.connect_per_identity_burst"),
    live_rate<&R::subscribe_per_ip>("auth.rate.subscribe_per_ip"),
    live_rate<&R::subscribe_per_ip_burst>("auth.rate.subscribe_per_ip_burst"),
    live_rate<&R::subscribe_per_identity>("auth.rate.subscribe_per_identity"),
    live_rate<&R::subscribe_per_identity_burst>("auth.rate.subscribe_per_identity_burst"),
    live_rate<&R::publish_per_ip>("auth.rate.publish_per_ip"),
    live_rate<&R::publish_per_ip_burst>("auth.rate.publish_per_ip_burst"),
    live_rate<&R::publish_per_identity>("auth.rate.publish_per_identity"),
    live_rate<&R::publish_per_identity_burst>("auth.rate.publish_per_identity_burst"),
    live<&C::auth, &A::jwt_secret>("auth.jwt_secret"),
    live<&C::auth, &A::jwt_secret_file>("auth.jwt_secret_file"),
    live<&C::auth, &A::jwt_public_key_file>("auth.jwt_public_key_file"),
    live<&C::auth, &A::jwks_file>("auth.jwks_file"),
    live<&C::auth, &A::audience>("auth.audience"),
    live<&C::auth, &A::issuer>("auth.issuer"),
    live<&C::auth, &A::clock_skew_ms>("auth.clock_skew_ms"),
    live<&C::http, &H::max_request_line>("http.max_request_line"),
    live<&C::http, &H::max_header_bytes>("http.max_header_bytes"),
    live<&C::http, &H::max_headers>("http.max_headers"),
    live<&C::http, &H::max_body>("http.max_body"),
    live<&C::allowed_hosts>("http.allowed_hosts"),
    live<&C::handshake_timeout_ms>("timeouts.handshake_ms"),
    live<&C::idle_timeout_ms>("timeouts.idle_ms"),
    live<&C::linger_timeout_ms>("timeouts.linger_ms"),
    live<&C::heartbeat_ms>("sse.heartbeat_ms"),
    live<&C::sse_retry_ms>("sse.retry_ms"),
    live<&C::max_topics_per_connection>("topics.max_per_connection"),
    live<&C::connection, &L::memory_bytes>("limits.connection_bytes"),
    live<&C::connection, &L::send, &S::max_bytes>("send.budget_bytes"),
    live<&C::connection, &L::send, &S::max_frames>("send.budget_frames"),
    live<&C::connection, &L::send, &S::max_control_frames>("send.control_frames"),
    live<&C::connection, &L::receive_budget>("receive.budget_bytes"),
    live<&C::connection, &L::receive_turn>("receive.turn_bytes"),
    live<&C::tcp_notsent_lowat>("tcp.notsent_lowat"),
    live<&C::tcp_send_buffer>("tcp.send_buffer"),
    live<&C::ws, &W::max_message>("ws.max_message"),
    live<&C::ws, &W::ping_interval_ms>("ws.ping_interval_ms"),
    live<&C::ws, &W::pong_timeout_ms>("ws.pong_timeout_ms"),
    live<&C::ws, &W::message_timeout_ms>("ws.message_timeout_ms"),
    live<&C::ws, &W::deflate>("ws.deflate"),
    live<&C::ws, &W::client_publish>("ws.client_publish"),
    live<&C::ws, &W::json_max_depth>("ws.json_max_depth"),
    live<&C::ws, &W::json_max_string>("ws.json_max_string"),
    live<&C::ws, &W::json_max_number>("ws.json_max_number"),
    live<&C::ws, &W::json_max_members>("ws.json_max_members"),
    live<&C::ws, &W::json_max_replies>("ws.json_max_replies"),
    live<&C::ws, &W::allowed_origins>("ws.allowed_origins"),
    live<&C::ws, &W::subprotocols>("ws.subprotocols"),
    live<&C::policy, &P::fallback>("policy.default"),
    live<&C::policy, &P::allowed>("policy.allow"),
    live<&C::policy, &P::rules>("policy.topics."),
    live<&C::policy, &P::slow_retry_ms>("policy.slow_retry_ms"),
    live<&C::ops, &O::admin_max_topics>("admin.max_topics"),
    live<&C::ops, &O::admin_max_connections>("admin.max_connections"),
    live<&C::ops, &O::admin_history_events>("admin.history_events"),
    live<&C::ops, &O::admin_drain_timeout_ms>("admin.drain_timeout_ms"),
    live<&C::ops, &O::log_level>("log.level"),
    live<&C::ops, &O::log_access>("log.access"),
    live<&C::tls, &TlsConfig::handshake_timeout_ms>("tls.handshake_timeout_ms"),
    live<&C::h2, &H2::max_concurrent_streams>("h2.max_concurrent_streams"),
    live<&C::h2, &H2::max_header_list_bytes>("h2.max_header_list_bytes"),
    live<&C::h2, &H2::stream_window>("h2.stream_window"),
    live<&C::h2, &H2::connection_window>("h2.connection_window"),
    live<&C::h2, &H2::max_frames_per_second>("h2.max_frames_per_second"),
    live<&C::h2, &H2::max_session_bytes>("h2.max_session_bytes"),
};

bool names(const LiveSetting& setting, std::string_view key) {
  if (setting.key.ends_with('.')) return key.starts_with(setting.key) && key.size() > setting.key.size();
  return key == setting.key;
}

}  // namespace

bool is_live_setting(std::string_view key) {
  for (const LiveSetting& setting : kLiveSettings) {
    if (names(setting, key)) return true;
  }
  return false;
}

std::vector<std::string_view> live_setting_keys() {
  std::vector<std::string_view> keys;
  for (const LiveSetting& setting : kLiveSettings) keys.push_back(setting.key);
  return keys;
}

SettingsChanges settings_changes(const SettingList& started, const SettingList& applied, const SettingList& now) {
  SettingsChanges changes;
  for (std::string& key : changed_keys(applied, now)) {
    if (is_live_setting(key)) changes.applied.push_back(std::move(key));
  }
  for (std::string& key : changed_keys(started, now)) {
    if (!is_live_setting(key)) changes.restart.push_back(std::move(key));
  }
  return changes;
}

Config with_live_settings(const Config& running, const Config& read) {
  Config next = running;
  for (const LiveSetting& setting : kLiveSettings) setting.copy(next, read);
  return next;
}

}  // namespace sluice::server
