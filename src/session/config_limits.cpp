#include "session/config_limits.hpp"

#include <algorithm>

#include "io/read_queue.hpp"

namespace sluice::session {

namespace {

// The public defaults are the layers' own.
constexpr server::HttpLimits kHttp;
constexpr proto::http1::Limits kHttpInternal;
static_assert(kHttp.max_request_line == kHttpInternal.max_request_line &&
              kHttp.max_header_bytes == kHttpInternal.max_header_bytes &&
              kHttp.max_headers == kHttpInternal.max_headers && kHttp.max_body == kHttpInternal.max_body);
constexpr server::PoolConfig kPool;
constexpr buf::PoolConfig kPoolInternal;
static_assert(kPool.block_count == kPoolInternal.block_count && kPool.block_size == kPoolInternal.block_size &&
              kPool.reserve == kPoolInternal.reserve && kPool.prefault == kPoolInternal.prefault);
constexpr server::ConnectionLimits kConnection;
constexpr conn::ConnectionLimits kConnectionInternal;
static_assert(kConnection.send.max_bytes == kConnectionInternal.send.max_bytes &&
              kConnection.send.max_frames == kConnectionInternal.send.max_frames &&
              kConnection.send.max_control_frames == kConnectionInternal.send.max_control_frames &&
              kConnection.receive_budget == kConnectionInternal.receive_budget &&
              kConnection.receive_turn == kConnectionInternal.receive_turn &&
              kConnection.memory_bytes == kConnectionInternal.memory_bytes &&
              kConnection.receive_tick == io::ReadQueue::kDefaultTickBytes);
constexpr server::TopicLimits kTopics;
constexpr hub::HubLimits kTopicsInternal;
static_assert(kTopics.max_topics == kTopicsInternal.max_topics &&
              kTopics.max_topic_name == kTopicsInternal.max_topic_name &&
              kTopics.max_subscribers_per_topic == kTopicsInternal.max_subscribers_per_topic &&
              kTopics.history_events == kTopicsInternal.history_events &&
              kTopics.history_bytes == kTopicsInternal.history_bytes);

constexpr server::H2Config kH2;
constexpr transport::H2Limits kH2Internal;
static_assert(kH2.max_concurrent_streams == kH2Internal.max_concurrent_streams &&
              kH2.max_header_list_bytes == kH2Internal.max_header_list_bytes &&
              kH2.stream_window == kH2Internal.stream_window &&
              kH2.connection_window == kH2Internal.connection_window &&
              kH2.max_frames_per_second == kH2Internal.max_frames_per_second &&
              kH2.max_session_bytes == static_cast<std::int64_t>(kH2Internal.max_session_bytes));

}  // namespace

proto::http1::Limits http_limits(const server::HttpLimits& l) {
  return {.max_request_line = l.max_request_line,
          .max_header_bytes = l.max_header_bytes,
          .max_headers = l.max_headers,
          .max_body = l.max_body};
}

buf::PoolConfig pool_config(const server::PoolConfig& c) {
  return {.block_count = c.block_count, .block_size = c.block_size, .reserve = c.reserve, .prefault = c.prefault};
}

conn::ConnectionLimits connection_limits(const server::ConnectionLimits& l) {
  return {.send = {.max_bytes = l.send.max_bytes,
                   .max_frames = l.send.max_frames,
                   .max_control_frames = l.send.max_control_frames},
          .receive_budget = l.receive_budget,
          .receive_turn = l.receive_turn,
          .memory_bytes = l.memory_bytes};
}

hub::HubLimits hub_limits(const server::TopicLimits& l) {
  return {.max_topics = l.max_topics,
          .max_topic_name = l.max_topic_name,
          .max_subscribers_per_topic = l.max_subscribers_per_topic,
          .history_events = l.history_events,
          .history_bytes = l.history_bytes,
          .history_ttl_ms = l.history_ttl_ms,
          .max_first_followed_per_address = l.max_per_address};
}

}  // namespace sluice::session

namespace sluice::session {

std::size_t h2_body_blocks(const server::Config& config) {
  if (config.h2.body_blocks != 0) return static_cast<std::size_t>(config.h2.body_blocks);
  const server::PoolConfig& pool = config.pool;
  const std::size_t data_blocks = pool.block_count > pool.reserve ? pool.block_count - pool.reserve : 0;
  // At least one body of http.max_body: a share smaller would refuse a
  // body HTTP/1.1 takes.
  const std::size_t one_body = (config.http.max_body + pool.block_size - 1) / pool.block_size;
  return std::max<std::size_t>({data_blocks / 4, one_body, 1});
}

transport::H2Limits h2_limits(const server::Config& c) {
  const server::H2Config& h2 = c.h2;
  return {.max_concurrent_streams = static_cast<std::uint32_t>(h2.max_concurrent_streams),
          .max_header_list_bytes = static_cast<std::uint32_t>(h2.max_header_list_bytes),
          .max_headers = static_cast<std::uint32_t>(c.http.max_headers),
          .max_frames_per_second = static_cast<std::uint32_t>(h2.max_frames_per_second),
          .max_body = c.http.max_body,
          .stream_window = static_cast<std::uint32_t>(h2.stream_window),
          .connection_window = static_cast<std::uint32_t>(h2.connection_window),
          .max_session_bytes = static_cast<std::size_t>(h2.max_session_bytes),
          .stream_send = connection_limits(c.connection).send,
          // WebSocket streams on /ws/{topic} by extended CONNECT.
          .extended_connect = true};
}

}  // namespace sluice::session
