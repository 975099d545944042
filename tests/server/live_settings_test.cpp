#include "server/live_settings.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
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
                          "max_connections", "limits.per_ip_connections", "limits.server_bytes", "limits.tls_record_reserve_bytes",
                          "policy.latest_window_frames", "policy.latest_padding_bytes_per_s",
                          "auth.rate.connect_per_ip", "auth.rate.publish_per_ip_burst",
                          "auth.jwt_secret", "auth.jwt_public_key_file", "auth.jwks_file", "auth.audience",
                          "auth.issuer", "auth.clock_skew_ms"}) {
    EXPECT_TRUE(is_live_setting(key)) << key;
  }
  for (const char* key : {"listen", "threads", "pool.block_count", "topics.max_name", "auth.max_keys",
                          "auth.anonymous_subscribe", "history.max_events", "broker.url", "auth.mode",
                          "auth.rate.table_entries", "tls.cert_file", "h2.enabled", "admin.listen", "log.format",
                          "policy.topics."}) {
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

// A value other than the default for every key `sluiced --help-config`
// lists: an integer key's bound farthest from its default, a word or list
// key's from `words` (any text where none is named).
std::map<std::string, std::string> non_default_values() {
  const std::map<std::string, std::string> words{
      {"listen", "127.0.0.1:9"},          {"admin.listen", "127.0.0.1:9"},
      {"policy.default", "latest"},       {"policy.allow", "fifo"},
      {"policy.topics.PATTERN", "latest"}, {"http.allowed_hosts", "a.example"},
      {"metrics.path", "/m"},             {"log.level", "debug"},
      {"log.format", "json"},             {"auth.mode", "open"},
      {"auth.callback_url", "http://127.0.0.1:9/auth"}, {"broker.url", "redis://127.0.0.1:9"},
      {"ws.allowed_origins", "https://app.example"}};
  std::map<std::string, std::string> values;
  std::istringstream lines(describe_settings());
  for (std::string line; std::getline(lines, line);) {
    const std::string key = line.substr(0, line.find_first_of(" ="));
    if (line.find(" = \"") != std::string::npos) {
      const auto word = words.find(key);
      values[key] = word != words.end() ? word->second : "x";
      continue;
    }
    // KEY = DEFAULT  # help [MIN..MAX]
    const std::size_t range = line.rfind('[');
    const std::size_t dots = line.find("..", range);
    const std::int64_t fallback = std::stoll(line.substr(line.find('=') + 1));
    const std::int64_t min = std::stoll(line.substr(range + 1, dots - range - 1));
    const std::int64_t max = std::stoll(line.substr(dots + 2));
    values[key] = std::to_string(fallback == min ? max : min);
  }
  return values;
}

// For every key there is: a reload that reads a new value takes it exactly
// when the key is live. A key whose field the merge copies without the key
// being live would change unannounced (the log names it as needing a
// restart); a live key whose field it does not copy would be named as
// applied and change nothing.
TEST(LiveSettings, EveryKeyReachesTheRunningConfigExactlyWhenItIsLive) {
  const Config running;
  const auto values = non_default_values();
  ASSERT_GT(values.size(), 100u);
  for (const auto& [described, value] : values) {
    const std::string key = described == "policy.topics.PATTERN" ? "policy.topics.news" : described;
    Config read;
    ASSERT_EQ(apply_setting(read, key, value), std::nullopt) << key << " = " << value;
    ASSERT_FALSE(read == running) << key << " = " << value << " is the default";
    const Config next = with_live_settings(running, read);
    if (is_live_setting(key)) {
      EXPECT_TRUE(next == read) << key << " is live but the merge does not take it";
    } else {
      EXPECT_TRUE(next == running) << key << " needs a restart but the merge takes it";
    }
  }
}

// What a reload names: the live keys changed since the last reload that
// applied them, and every other key that differs from the start, however
// many reloads ago it was changed.
TEST(LiveSettings, AReloadNamesLiveKeysChangedSinceTheLastAndTheOthersChangedSinceTheStart) {
  const SettingList started{{"http.max_body", "4096"}, {"topics.max", "100"}};
  const SettingList first{{"http.max_body", "1000"}, {"topics.max", "50"}, {"log.level", "debug"}};
  SettingsChanges changes = settings_changes(started, started, first);
  EXPECT_EQ(changes.applied, (std::vector<std::string>{"http.max_body", "log.level"}));
  EXPECT_EQ(changes.restart, std::vector<std::string>{"topics.max"});

  changes = settings_changes(started, first, first);
  EXPECT_TRUE(changes.applied.empty());
  EXPECT_EQ(changes.restart, std::vector<std::string>{"topics.max"}) << "still not in force";

  // Back to the start's value: nothing waits for a restart; a live key
  // removed from the file goes back to its default, and is named.
  const SettingList second{{"http.max_body", "1000"}, {"topics.max", "100"}};
  changes = settings_changes(started, first, second);
  EXPECT_EQ(changes.applied, std::vector<std::string>{"log.level"});
  EXPECT_TRUE(changes.restart.empty());
}

}  // namespace
}  // namespace sluice::server
