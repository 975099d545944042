// Owns: WsClient, a WebSocket subscriber and publisher that reads on its
// own thread, answers the server's pings, reconnects with back-off, and
// resumes each topic from the last id it received.
//
// Two kinds of URL:
// - ws://host:port/ws speaks sluice's JSON protocol: the application
//   subscribe()s to topics (before or after start()); on every connection
//   the client subscribes to each again with "since" set to the last id it
//   received on that topic, so a server that replays history loses nothing.
//   publish() sends events; each request is answered by an EventKind::ack.
// - ws://host:port/ws/{topic} (any other path): every message is one event
//   of that topic, with no id; nothing can be resumed or requested.
//
// Threads: as SseClient. Requests are handed to the client's thread, which
// owns the socket and writes them whole, masked with fresh keys from the
// OpenSSL CSPRNG (RFC 6455 §5.3). Callbacks run on the client's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/client/event.hpp"
#include "sluice/client/options.hpp"
#include "sluice/client/status.hpp"

namespace sluice::client {

struct SubscribeOptions {
  std::string since;   // resume after this id on the first subscription; later ones use the last id received
  std::string policy;  // the server's slow-consumer policy ("latest", ...); empty: the server's choice
};

struct PublishOptions {
  std::string_view event;  // the event name; empty: "message"
  std::string_view key;    // what the server's `latest` policy conflates by; empty: the topic
};

enum class SubmitStatus : std::uint8_t {
  queued,   // `req` names the ack to come
  full,     // kMaxPendingRequests requests, or queue_bytes of them, wait for an answer already
  refused,  // not possible: a /ws/{topic} URL, a bad topic name, data that is not UTF-8,
            // or kMaxTopics topics subscribed
  stopped,  // the client has stopped or failed
};

struct Submit {
  SubmitStatus status = SubmitStatus::stopped;
  std::uint64_t req = 0;
};

class WsClient {
 public:
  static constexpr std::size_t kMaxPendingRequests = 256;
  static constexpr std::size_t kMaxTopics = 1024;

  explicit WsClient(const ClientOptions& options = {});
  // Stops the client (see stop()).
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // Parses `url` (ws:// or wss://) and starts the client's thread. Returns
  // kind none once started, else a fatal error, starting nothing: bad_url,
  // tls (the CA file cannot be read), resources (no thread or eventfd, or a
  // second start()).
  [[nodiscard]] ClientError start(std::string_view url);

  // Requests, from any thread, sent once a connection is open. Topics are
  // 1-128 of [A-Za-z0-9_.:-]. A subscription lasts until unsubscribe(),
  // across reconnections; a failed subscribe (ack with ok false) ends it,
  // except a second one to a topic already followed, which is refused and
  // leaves the first as it was.
  // A publish whose connection closed before the answer is acked with ok
  // false: it may or may not have been published.
  Submit subscribe(std::string_view topic, const SubscribeOptions& options = {});
  Submit unsubscribe(std::string_view topic);
  Submit publish(std::string_view topic, std::string_view data, const PublishOptions& options = {});

  // As SseClient::next(). Acks and notices are never overwritten.
  NextStatus next(Event& out, std::chrono::milliseconds wait);

  void reconnect();
  // Sends a close frame (1000) when it can, then as SseClient::stop().
  void stop();

  [[nodiscard]] ClientState state() const;
  [[nodiscard]] ClientError error() const;
  // The id a re-subscription to `topic` would resume after: the last one
  // received, else the `since` given, else the topic's newest id that the
  // server named when it acknowledged the subscription; empty if none.
  [[nodiscard]] std::string last_id(std::string_view topic) const;
  [[nodiscard]] ClientStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::client
