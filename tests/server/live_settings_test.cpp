#include "server/live_settings.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::server {
namespace {

Config with(std::initializer_list<std::pair<std::string_view, std::string_view>> settings) {
  Config config;
  for (const auto& [key, value] : settings) {
    EXPECT_EQ(apply_setting(config, key, value), std::nullopt) << key;
  }
  return config;
}

TEST(LiveSettings, LimitsOnNewWorkAreLiveWhatWasBuiltAtStartIsNot) {
  for (const char* key : {"http.max_body", "http.allowed_hosts", "sse.heartbeat_ms", "send.budget_bytes",
                          "ws.max_message", "ws.allowed_origins", "policy.default", "policy.topics.prices.*",
                          "admin.max_topics", "log.level", "log.access", "h2.max_concurrent_streams",
                          "max_connections", "limits.per_ip_connections", "limits.server_bytes",
                          "policy.latest_window_frames", "auth.rate.connect_per_ip", "auth.rate.publish_per_ip_burst"}) {
    EXPECT_TRUE(is_live_setting(key)) << key;
  }
  for (const char* key : {"listen", "threads", "pool.block_count", "topics.max_name", "auth.jwt_secret",
                          "history.max_events", "broker.url", "auth.mode", "auth.rate.table_entries",
                          "tls.cert_file", "h2.enabled", "admin.listen", "log.format", "policy.topics."}) {
    EXPECT_FALSE(is_live_setting(key)) << key;
  }
}

TEST(LiveSettings, EveryLiveKeyIsAKeyTheConfigKnows) {
  const std::string described = describe_settings();
  for (const std::string_view key : live_setting_keys()) {
    const std::string name = key.ends_with('.') ? std::string(key) + "PATTERN" : std::string(key);
    EXPECT_NE(described.find(name), std::string::npos) << key;
  }
}

TEST(LiveSettings, OnlyLiveValuesAreTakenFromWhatWasRead) {
  const Config running = with({{"listen", "127.0.0.1:9000"}, {"pool.block_count", "2048"}});
  const Config read = with({{"listen", "0.0.0.0:9001"},
                            {"pool.block_count", "4096"},
                            {"topics.max_name", "200"},
                            {"http.max_body", "1000"},
                            {"ws.allowed_origins", "https://a.example"},
                            {"policy.topics.prices.*", "latest"},
                            {"log.level", "debug"}});
  const Config next = with_live_settings(running, read);
  EXPECT_EQ(next.http.max_body, 1000u);
  EXPECT_EQ(next.ws.allowed_origins, std::vector<std::string>{"https://a.example"});
  EXPECT_EQ(next.policy.for_topic("prices.eu"), Policy::latest);
  EXPECT_EQ(next.ops.log_level, "debug");
  EXPECT_EQ(next.listen, "127.0.0.1:9000");
  EXPECT_EQ(next.pool.block_count, 2048u);
  EXPECT_EQ(next.hub.max_topic_name, Config{}.hub.max_topic_name);
}

}  // namespace
}  // namespace sluice::server
