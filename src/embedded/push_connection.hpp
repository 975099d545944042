// Owns: PushConnection, what the single-loop push server keeps for one
// connection: its phase, the topics it follows (a fixed table of
// kMaxTopicsPerConnection), the events it lost on each since it was last
// told, its idle time for heartbeats, and the decoder for what a WebSocket
// subscriber sends (pings and its close).
//
// The application makes every PushConnection at start-up (a static array
// will do) and the server reuses them, so a new connection costs no heap:
// an object is the same few hundred bytes whatever the traffic. The
// request is parsed by one parser the whole server shares (see
// request_phase.cpp), so nothing of the parser is kept per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "delivery/drop_record.hpp"
#include "proto/ws_decoder.hpp"

namespace sluice::embedded {

class Link;

// The longest topic name a connection can follow.
inline constexpr std::size_t kMaxTopicBytes = 32;
// Topics one connection may follow (`/sse/a?topic=b&topic=c`): a table in
// the connection, so its RAM is fixed; a request naming more is answered
// 400. Each costs kMaxTopicBytes and a drop record.
inline constexpr std::size_t kMaxTopicsPerConnection = 4;

class PushConnection {
 public:
  enum class Phase : std::uint8_t {
    idle,       // no connection
    request,    // waiting for the request head
    sse,        // an SSE subscriber
    websocket,  // a WebSocket subscriber
    closing,    // the last bytes are going out, then the link closes
  };

  PushConnection() = default;
  PushConnection(const PushConnection&) = delete;
  PushConnection& operator=(const PushConnection&) = delete;

  [[nodiscard]] Phase phase() const { return phase_; }
  [[nodiscard]] std::size_t topic_count() const { return topic_count_; }
  [[nodiscard]] std::string_view topic(std::size_t i) const { return {topics_[i], topic_sizes_[i]}; }
  // The index of `topic` in the connection's table, or -1.
  [[nodiscard]] int find_topic(std::string_view topic) const {
    for (std::size_t i = 0; i < topic_count_; ++i) {
      if (this->topic(i) == topic) return static_cast<int>(i);
    }
    return -1;
  }
  [[nodiscard]] bool subscribed() const { return phase_ == Phase::sse || phase_ == Phase::websocket; }
  // Events of topic(i) lost and not yet reported to the subscriber.
  [[nodiscard]] const delivery::DropRecord& unreported_drops(std::size_t i) const { return drops_[i]; }

 private:
  friend class PushServer;

  Link* link_ = nullptr;
  PushConnection* next_ = nullptr;  // the server's list of open connections
  Phase phase_ = Phase::idle;
  std::uint8_t topic_count_ = 0;
  std::uint8_t request_polls_ = 0;  // polls seen in the request phase, then in the closing phase
  std::uint8_t idle_polls_ = 0;     // polls since the subscriber was last sent anything
  std::uint8_t topic_sizes_[kMaxTopicsPerConnection] = {};
  char topics_[kMaxTopicsPerConnection][kMaxTopicBytes] = {};
  delivery::DropRecord drops_[kMaxTopicsPerConnection];
  // A subscriber socket takes control frames only: a data message would
  // need a buffer, and is refused (1009) rather than given one.
  proto::ws::Decoder decoder_{{.max_message_size = 0}};
};

}  // namespace sluice::embedded
