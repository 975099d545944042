#include "sluice/config.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "scratch_file.hpp"
#include "session/config_limits.hpp"

namespace sluice::server {
namespace {

TEST(Config, DefaultsAreValid) { EXPECT_EQ(validate(Config{}), std::nullopt); }

TEST(Config, SettingsReachTheirFields) {
  Config c;
  EXPECT_EQ(apply_setting(c, "pool.block_size", "8192"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "send.budget_frames", "77"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "http.max_body", "0"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "listen", ":9000"), std::nullopt);
  EXPECT_EQ(c.pool.block_size, 8192u);
  EXPECT_EQ(c.connection.send.max_frames, 77u);
  EXPECT_EQ(c.http.max_body, 0u);
  EXPECT_EQ(c.listen, ":9000");
}

TEST(Config, OutOfRangeValuesNameTheKeyAndTheRange) {
  Config c;
  const auto error = apply_setting(c, "sse.heartbeat_ms", "99");
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "config key 'sse.heartbeat_ms' must be an integer between 100 and 3600000 (got '99')");
  EXPECT_TRUE(apply_setting(c, "sse.heartbeat_ms", "3600001"));
  EXPECT_TRUE(apply_setting(c, "sse.heartbeat_ms", "1e3"));
  EXPECT_TRUE(apply_setting(c, "sse.heartbeat_ms", ""));
  EXPECT_TRUE(apply_setting(c, "sse.heartbeat_ms", "-5"));
  EXPECT_EQ(c.heartbeat_ms, Config{}.heartbeat_ms);
}

TEST(Config, TheLatestWindowIsAFrameCountUpTo1024) {
  Config c;
  EXPECT_EQ(c.policy.latest_window_frames, 1);
  EXPECT_EQ(apply_setting(c, "policy.latest_window_frames", "0"), std::nullopt);  // no window
  EXPECT_EQ(c.policy.latest_window_frames, 0);
  EXPECT_EQ(apply_setting(c, "policy.latest_window_frames", "4"), std::nullopt);
  EXPECT_EQ(c.policy.latest_window_frames, 4);
  const auto error = apply_setting(c, "policy.latest_window_frames", "1025");
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "config key 'policy.latest_window_frames' must be an integer between 0 and 1024 (got '1025')");
  EXPECT_EQ(c.policy.latest_window_frames, 4);
}

TEST(Config, TheLatestPaddingIsBytesASecondUpTo1MiB) {
  Config c;
  EXPECT_EQ(c.policy.latest_padding_bytes_per_s, 16384);
  EXPECT_EQ(apply_setting(c, "policy.latest_padding_bytes_per_s", "0"), std::nullopt);  // none
  EXPECT_EQ(c.policy.latest_padding_bytes_per_s, 0);
  const auto error = apply_setting(c, "policy.latest_padding_bytes_per_s", "1048577");
  ASSERT_TRUE(error);
  EXPECT_EQ(*error,
            "config key 'policy.latest_padding_bytes_per_s' must be an integer between 0 and 1048576 (got '1048577')");
  EXPECT_EQ(c.policy.latest_padding_bytes_per_s, 0);
}

TEST(Config, TheAdminKeysHaveTheirShapesAndRanges) {
  Config c;
  EXPECT_TRUE(c.ops.admin_listen.empty());  // no admin API unless asked for
  EXPECT_EQ(apply_setting(c, "admin.listen", "127.0.0.1:9090"), std::nullopt);
  EXPECT_EQ(c.ops.admin_listen, "127.0.0.1:9090");
  const auto malformed = apply_setting(c, "admin.listen", "127.0.0.1:99999");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(*malformed,
            "config key 'admin.listen' must be empty or HOST:PORT, HOST an IPv4 address, [IPv6] or localhost and "
            "PORT 0-65535 (got '127.0.0.1:99999')");
  EXPECT_EQ(c.ops.admin_listen, "127.0.0.1:9090");
  EXPECT_EQ(apply_setting(c, "admin.listen", ""), std::nullopt);
  EXPECT_TRUE(c.ops.admin_listen.empty());
  EXPECT_EQ(c.ops.admin_drain_timeout_ms, 30000);
  EXPECT_EQ(apply_setting(c, "admin.drain_timeout_ms", "0"), std::nullopt);
  EXPECT_TRUE(apply_setting(c, "admin.drain_timeout_ms", "3600001"));
  EXPECT_EQ(c.ops.admin_history_events, 100);
  EXPECT_TRUE(apply_setting(c, "admin.history_events", "0"));
  EXPECT_TRUE(apply_setting(c, "admin.max_topics", "0"));
  EXPECT_EQ(c.ops.admin_max_connections, 1000);
  EXPECT_EQ(apply_setting(c, "admin.max_connections", "100000"), std::nullopt);
  EXPECT_TRUE(apply_setting(c, "admin.max_connections", "0"));
}

TEST(Config, AllowedHostsAreAListOfNamesAndABadEntryNamesTheKey) {
  Config c;
  EXPECT_TRUE(c.allowed_hosts.empty());  // the default is decided by the listener and the auth
  EXPECT_EQ(apply_setting(c, "http.allowed_hosts", "push.example.com, localhost:8080,[::1]"), std::nullopt);
  EXPECT_EQ(c.allowed_hosts, (std::vector<std::string>{"push.example.com", "localhost:8080", "[::1]"}));
  const auto bad = apply_setting(c, "http.allowed_hosts", "push.example.com,evil/example");
  ASSERT_TRUE(bad);
  EXPECT_EQ(*bad,
            "config key 'http.allowed_hosts' must be a comma list of host names or addresses, each with an "
            "optional :PORT, or * (got 'evil/example')");
  EXPECT_EQ(c.allowed_hosts.size(), 3u);  // unchanged
  EXPECT_EQ(apply_setting(c, "http.allowed_hosts", "*"), std::nullopt);
  EXPECT_EQ(c.allowed_hosts, std::vector<std::string>{"*"});
}

TEST(Config, AllowedOriginsAreOriginsOrRefusedNamingTheEntry) {
  Config c;
  EXPECT_EQ(apply_setting(c, "ws.allowed_origins", "https://app.example, http://localhost:3000"), std::nullopt);
  EXPECT_EQ(c.ws.allowed_origins, (std::vector<std::string>{"https://app.example", "http://localhost:3000"}));
  EXPECT_EQ(apply_setting(c, "ws.allowed_origins", "https://app.example,app2.example"),
            "config key 'ws.allowed_origins' must be a comma list of origins, each SCHEME://HOST[:PORT] with no path "
            "and no default port (or null) (got 'app2.example')");
  EXPECT_EQ(c.ws.allowed_origins.size(), 2u);  // unchanged
}

TEST(Config, CrossKeyRules) {
  Config c;
  c.pool.block_size = 64;
  c.pool.reserve = 31;
  ASSERT_TRUE(validate(c));
  EXPECT_NE(validate(c)->find("'pool.reserve' must be at least 32"), std::string::npos);
  c.pool.reserve = 32;
  c.pool.block_count = 32;
  EXPECT_EQ(validate(c), "config key 'pool.reserve' must be below pool.block_count (32)");
  c.pool.block_count = 20000;
  EXPECT_EQ(validate(c), std::nullopt);
  c.connection.send.max_bytes = 63;
  EXPECT_NE(validate(c)->find("'send.budget_bytes'"), std::string::npos);
}

TEST(Config, TlsKeysReachTheirFieldsAndComeInPairs) {
  Config c;
  EXPECT_FALSE(c.tls.enabled());
  EXPECT_EQ(apply_setting(c, "tls.cert_file", "/etc/sluice/cert.pem"), std::nullopt);
  EXPECT_NE(validate(c)->find("'tls.cert_file' and 'tls.key_file' must be set together"), std::string::npos);
  EXPECT_EQ(apply_setting(c, "tls.key_file", "/etc/sluice/key.pem"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "tls.chain_file", "/etc/sluice/chain.pem"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "tls.handshake_timeout_ms", "2500"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "tls.min_version", "13"), std::nullopt);
  EXPECT_EQ(validate(c), std::nullopt);
  EXPECT_TRUE(c.tls.enabled());
  EXPECT_EQ(c.tls.key_file, "/etc/sluice/key.pem");
  EXPECT_EQ(c.tls.chain_file, "/etc/sluice/chain.pem");
  EXPECT_EQ(c.tls.handshake_timeout_ms, 2500);
  EXPECT_EQ(c.tls.min_version, 13);
  EXPECT_EQ(*apply_setting(c, "tls.min_version", "11"),
            "config key 'tls.min_version' must be an integer between 12 and 13 (got '11')");
  EXPECT_TRUE(apply_setting(c, "tls.handshake_timeout_ms", "99"));

  Config chain_alone;
  EXPECT_EQ(apply_setting(chain_alone, "tls.chain_file", "/etc/sluice/chain.pem"), std::nullopt);
  EXPECT_TRUE(validate(chain_alone));
}

TEST(Config, H2KeysReachTheEngineLimitsAndNameTheirRange) {
  Config c;
  EXPECT_EQ(c.h2.enabled, 1);
  for (const auto& [key, value] : {std::pair{"h2.enabled", "0"}, {"h2.max_concurrent_streams", "20"},
                                   {"h2.max_header_list_bytes", "4096"}, {"h2.stream_window", "1024"},
                                   {"h2.connection_window", "65536"}, {"h2.max_frames_per_second", "50"},
                                   {"h2.max_session_bytes", "131072"}}) {
    EXPECT_EQ(apply_setting(c, key, value), std::nullopt) << key;
  }
  c.http.max_body = 5000;
  const transport::H2Limits limits = session::h2_limits(c);
  EXPECT_EQ(c.h2.enabled, 0);
  EXPECT_EQ(limits.max_concurrent_streams, 20u);
  EXPECT_EQ(limits.max_header_list_bytes, 4096u);
  EXPECT_EQ(limits.stream_window, 1024u);
  EXPECT_EQ(limits.connection_window, 65536u);
  EXPECT_EQ(limits.max_frames_per_second, 50u);
  EXPECT_EQ(limits.max_session_bytes, 131072u);
  EXPECT_EQ(limits.max_body, 5000u);
  EXPECT_EQ(limits.stream_send.max_bytes, c.connection.send.max_bytes);
  EXPECT_TRUE(limits.extended_connect);
  EXPECT_EQ(*apply_setting(c, "h2.max_concurrent_streams", "0"),
            "config key 'h2.max_concurrent_streams' must be an integer between 1 and 10000 (got '0')");
  EXPECT_EQ(*apply_setting(c, "h2.stream_window", "1023"),
            "config key 'h2.stream_window' must be an integer between 1024 and 16777216 (got '1023')");
  EXPECT_EQ(*apply_setting(c, "h2.max_frames_per_second", "9"),
            "config key 'h2.max_frames_per_second' must be an integer between 10 and 1000000 (got '9')");
  EXPECT_EQ(*apply_setting(c, "h2.enabled", "2"), "config key 'h2.enabled' must be an integer between 0 and 1 (got '2')");
  EXPECT_TRUE(apply_setting(c, "h2.max_header_list_bytes", "255"));
  EXPECT_TRUE(apply_setting(c, "h2.connection_window", "65535"));
  EXPECT_TRUE(apply_setting(c, "h2.max_session_bytes", "67108865"));
}

TEST(Config, TomlTablesNameTheKeys) {
  const test::ScratchFile file("config_test.toml");
  const std::string& path = file.path();
  std::ofstream(path) << "listen = \"127.0.0.1:9999\"\nmax_connections = 5\n[pool]\nblock_size = 2048\n"
                         "[send]\nbudget_bytes = 65536\n";
  Config c;
  ASSERT_EQ(load_config_file(c, path), std::nullopt);
  EXPECT_EQ(c.listen, "127.0.0.1:9999");
  EXPECT_EQ(c.max_connections, 5);
  EXPECT_EQ(c.pool.block_size, 2048u);
  EXPECT_EQ(c.connection.send.max_bytes, 65536u);

  std::ofstream(path) << "[pool]\nblock_size = \"big\"\n";
  const auto error = load_config_file(c, path);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("'pool.block_size'"), std::string::npos);
}

TEST(Config, DescribeListsEveryKey) {
  const std::string text = describe_settings();
  for (const char* key : {"listen", "pool.reserve", "send.budget_bytes", "tcp.notsent_lowat", "timeouts.idle_ms"}) {
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
}

TEST(Config, TheMemoryLimitsHaveRangesAndTheServersCoversAConnections) {
  Config config;
  EXPECT_EQ(apply_setting(config, "limits.connection_bytes", "4194304"), std::nullopt);
  EXPECT_EQ(config.connection.memory_bytes, 4194304u);
  EXPECT_EQ(apply_setting(config, "limits.server_bytes", "2097152"), std::nullopt);
  EXPECT_EQ(config.server_memory_bytes, 2097152);
  const std::optional<std::string> cross = validate(config);
  ASSERT_TRUE(cross);
  EXPECT_NE(cross->find("limits.server_bytes"), std::string::npos) << *cross;
  const std::optional<std::string> low = apply_setting(config, "limits.connection_bytes", "1000");
  ASSERT_TRUE(low);
  EXPECT_NE(low->find("limits.connection_bytes"), std::string::npos) << *low;
  EXPECT_NE(low->find("65536"), std::string::npos) << *low;
}

// The file's rule for a pattern, then a --set of the same pattern (or a
// reload that reads both): the later value is the rule, as it is for every
// other key. Both used to be kept, and the first to match (the file's) won.
TEST(Config, ATopicRuleSetAgainTakesTheLaterValue) {
  Config c;
  ASSERT_EQ(apply_setting(c, "policy.topics.news", "fifo"), std::nullopt);
  ASSERT_EQ(apply_setting(c, "policy.topics.prices.*", "drop-oldest"), std::nullopt);
  ASSERT_EQ(apply_setting(c, "policy.topics.news", "latest"), std::nullopt);
  EXPECT_EQ(c.policy.for_topic("news"), Policy::latest);
  EXPECT_EQ(c.policy.for_topic("prices.eu"), Policy::drop_oldest);
  EXPECT_EQ(c.policy.rules.size(), 2u);
}

// Names that go into a header must be one: a cookie name with ';' would
// never match what a browser sends, a subprotocol with a space never be
// offered as written.
TEST(Config, NamesThatGoIntoAHeaderMustBeTokens) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"auth.cookie_name", "a;b"}, {"auth.cookie_name", "a b"}, {"ws.subprotocols", "chat, a b"},
           {"auth.claim", ""}, {"auth.claim", "exp"}, {"auth.claim", "sub"}}) {
    Config c;
    const std::optional<std::string> error = apply_setting(c, key, value);
    ASSERT_TRUE(error) << key << "=" << value;
    EXPECT_EQ(error->rfind("config key '" + key + "' must", 0), 0u) << *error;
  }
  Config c;
  EXPECT_EQ(apply_setting(c, "auth.cookie_name", ""), std::nullopt);  // no cookie read
  EXPECT_EQ(apply_setting(c, "auth.cookie_name", "session_token"), std::nullopt);
  EXPECT_EQ(apply_setting(c, "ws.subprotocols", "chat.v2, graphql-ws"), std::nullopt);
  EXPECT_EQ(c.ws.subprotocols, (std::vector<std::string>{"chat.v2", "graphql-ws"}));
}

// The metrics on another route's path would hide a topic, or be hidden.
TEST(Config, AMetricsPathOnAnotherRouteIsRefused) {
  for (const char* path : {"/sse/x", "/pub/x", "/ws", "/ws/x", "/healthz", "/dashboard", "/admin/topics"}) {
    Config c;
    const std::optional<std::string> error = apply_setting(c, "metrics.path", path);
    ASSERT_TRUE(error) << path;
    EXPECT_EQ(error->rfind("config key 'metrics.path' must not be one of the server's routes", 0), 0u) << *error;
  }
  Config c;
  EXPECT_EQ(apply_setting(c, "metrics.path", "/internal/metrics"), std::nullopt);
  EXPECT_EQ(c.ops.metrics_path, "/internal/metrics");
}

// A pattern no topic could match would leave its topics on the default
// policy without a word.
TEST(Config, ATopicRuleNoTopicCouldMatchIsRefusedNamingItsKey) {
  for (const char* pattern : {"prices*.eur", "**", "a b", "prices.*.eu", "$sys", "caf\xc3\xa9"}) {
    Config c;
    const std::string key = std::string("policy.topics.") + pattern;
    const std::optional<std::string> error = apply_setting(c, key, "latest");
    ASSERT_TRUE(error) << pattern;
    EXPECT_EQ(error->rfind("config key '" + key + "': the pattern must be", 0), 0u) << *error;
    EXPECT_TRUE(c.policy.rules.empty()) << pattern;
  }
  for (const char* pattern : {"*", "prices.*", "prices.eu", "a-b_c:d*"}) {
    Config c;
    EXPECT_EQ(apply_setting(c, std::string("policy.topics.") + pattern, "latest"), std::nullopt) << pattern;
  }
}

// Rules are read in name order from a file, so the order they were set in
// must not decide: the exact name wins, then the longest prefix.
TEST(Config, TheMostSpecificTopicRuleWinsInEitherOrder) {
  const std::vector<std::pair<std::string, std::string>> rules = {{"policy.topics.*", "drop-newest"},
                                                                  {"policy.topics.prices.*", "drop-oldest"},
                                                                  {"policy.topics.prices.eu.*", "latest"},
                                                                  {"policy.topics.prices.eu.fr", "fifo"}};
  for (const bool reversed : {false, true}) {
    Config c;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const auto& [key, value] = rules[reversed ? rules.size() - 1 - i : i];
      ASSERT_EQ(apply_setting(c, key, value), std::nullopt) << key;
    }
    EXPECT_EQ(c.policy.for_topic("prices.eu.fr"), Policy::fifo) << reversed;
    EXPECT_EQ(c.policy.for_topic("prices.eu.de"), Policy::latest) << reversed;
    EXPECT_EQ(c.policy.for_topic("prices.us"), Policy::drop_oldest) << reversed;
    EXPECT_EQ(c.policy.for_topic("news"), Policy::drop_newest) << reversed;
  }
}

// What `sluiced --help-config` prints is a config a user can start from:
// each key's default, given back as its value, is taken as it is.
TEST(Config, EveryDefaultTheReferencePrintsIsAcceptedAsAValue) {
  std::istringstream lines(describe_settings());
  int keys = 0;
  for (std::string line; std::getline(lines, line);) {
    // KEY = VALUE  # help, the key padded; a word's value quoted.
    const std::size_t equals = line.find('=');
    ASSERT_NE(equals, std::string::npos) << line;
    const std::string key = line.substr(0, line.find_first_of(" ="));
    if (key == "policy.topics.PATTERN") continue;  // a key made of the topic pattern
    const std::size_t at = line.find_first_not_of(' ', equals + 1);
    const bool quoted = line[at] == '"';
    const std::size_t end = quoted ? line.find('"', at + 1) : line.find(' ', at);
    const std::string value = line.substr(at + (quoted ? 1 : 0), end - at - (quoted ? 1 : 0));
    Config config;
    const std::optional<std::string> error = apply_setting(config, key, value);
    EXPECT_FALSE(error) << key << " = " << value << ": " << *error;
    ++keys;
  }
  EXPECT_GT(keys, 100);
}

// An empty broker.url is no broker, as by default: a template that fills
// it in or leaves it empty needs no other change.
TEST(Config, AnEmptyBrokerUrlMeansNoBroker) {
  Config config;
  ASSERT_FALSE(apply_setting(config, "broker.url", "redis://127.0.0.1:6379"));
  ASSERT_EQ(config.broker.urls.size(), 1u);
  EXPECT_FALSE(apply_setting(config, "broker.url", ""));
  EXPECT_TRUE(config.broker.urls.empty());
  EXPECT_TRUE(apply_setting(config, "broker.url", ","));
}

}  // namespace
}  // namespace sluice::server
