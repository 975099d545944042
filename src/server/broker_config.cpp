#include "server/broker_config.hpp"

#include <algorithm>
#include <chrono>

namespace sluice::server {

namespace {

constexpr std::size_t kMaxPrefix = 64;
// Bytes of a read besides the topics' keys: the command words and counts.
constexpr std::size_t kReadOverhead = 128;
// Bytes per topic in a read besides its key: a stream id and RESP framing.
constexpr std::size_t kReadPerTopic = 73;

std::vector<std::string> split_urls(std::string_view value) {
  std::vector<std::string> urls;
  for (std::size_t start = 0; start <= value.size();) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    std::string_view item = value.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) urls.emplace_back(item);
    start = comma + 1;
  }
  return urls;
}

}  // namespace

bool apply_broker_setting(BrokerSettings& broker, std::string_view key, std::string_view value,
                          std::optional<std::string>& error) {
  if (key == "broker.url") {
    if (value.empty()) {  // as the default: no broker
      broker.urls.clear();
      return true;
    }
    std::vector<std::string> urls = split_urls(value);
    std::vector<broker::Endpoint> endpoints;
    std::string why;
    if (!broker::parse_endpoints(urls, endpoints, why)) {
      error = "config key " + why;
      return true;
    }
    broker.urls = std::move(urls);
    return true;
  }
  if (key == "broker.prefix") {
    if (value.empty() || value.size() > kMaxPrefix) {
      error = "config key 'broker.prefix' must be 1 to " + std::to_string(kMaxPrefix) + " bytes (got " +
              std::to_string(value.size()) + ")";
      return true;
    }
    broker.prefix = std::string(value);
    return true;
  }
  return false;
}

std::optional<std::string> check_broker(const Config& config) {
  const BrokerSettings& b = config.broker;
  if (!b.enabled()) return std::nullopt;
  if (b.reconnect_min_ms > b.reconnect_max_ms) {
    return "config key 'broker.reconnect_min_ms' must be at most broker.reconnect_max_ms (" +
           std::to_string(b.reconnect_max_ms) + ")";
  }
  // A reader following all it may must be able to send its XREAD.
  const std::size_t read_bytes = static_cast<std::size_t>(b.read_max_topics) *
                                     (b.prefix.size() + static_cast<std::size_t>(config.hub.max_topic_name) +
                                      kReadPerTopic) +
                                 kReadOverhead;
  if (read_bytes > static_cast<std::size_t>(b.max_pending_bytes)) {
    return "config key 'broker.max_pending_bytes' must be at least " + std::to_string(read_bytes) +
           " for broker.read_max_topics=" + std::to_string(b.read_max_topics) +
           " (a full reader's XREAD must fit); lower broker.read_max_topics or raise it";
  }
  return std::nullopt;
}

std::string describe_broker_settings() {
  return "broker.url = \"\"  # comma list of redis://ADDRESS[:PORT] sharing topics with other nodes (topics "
         "spread over them); empty: no broker\n"
         "broker.prefix = \"sluice:\"  # a topic's Redis Stream is PREFIX + TOPIC [1..64 bytes]\n";
}

broker::BrokerConfig make_broker_config(const Config& config) {
  const BrokerSettings& b = config.broker;
  broker::BrokerConfig out;
  std::string ignored;
  (void)broker::parse_endpoints(b.urls, out.endpoints, ignored);  // checked when set
  out.prefix = b.prefix;
  const auto history = std::max<std::uint64_t>(config.hub.history_events, 1);
  out.max_len = b.max_len == 0 ? history : static_cast<std::uint64_t>(b.max_len);
  out.max_replay = static_cast<std::size_t>(history);
  out.link.connect_timeout = std::chrono::milliseconds(b.connect_timeout_ms);
  out.link.request_timeout = std::chrono::milliseconds(b.request_timeout_ms);
  out.link.max_pending = static_cast<std::size_t>(b.max_pending);
  out.link.max_pending_bytes = static_cast<std::size_t>(b.max_pending_bytes);
  out.link.max_reply_bytes = static_cast<std::size_t>(b.max_reply_bytes);
  out.link.reconnect_min = std::chrono::milliseconds(b.reconnect_min_ms);
  out.link.reconnect_max = std::chrono::milliseconds(b.reconnect_max_ms);
  out.reader.prefix = b.prefix;
  out.reader.max_topics = static_cast<std::size_t>(b.read_max_topics);
  out.reader.read_count = static_cast<std::size_t>(b.read_count);
  out.reader.block = std::chrono::milliseconds(b.read_block_ms);
  out.reader.max_data = std::max(static_cast<std::size_t>(config.http.max_body), static_cast<std::size_t>(config.ws.max_message));
  return out;
}

}  // namespace sluice::server
