// Owns: Publisher, the bench's publisher: one connection to /pub/{topic},
// many events per write, each payload stamped with the time its batch was
// written and numbered with the publisher's index and sequence (stamp.hpp).
// It paces itself to a target rate or runs flat out. Two modes:
//  - post: POST /pub/{topic} on one keep-alive connection, pipelined. At
//    most `window` requests are unanswered at any time, so the publisher
//    never buries the server in more than it asked for. Every reply is
//    parsed: a non-2xx status is counted as refused (its sequence number is
//    then a gap at every reader), or, with retry_refused, the same event
//    is sent again, one request at a time so that order holds. A server
//    that closes the connection after a reply is followed (see
//    reconnect_after_close).
//  - ws: GET /pub/{topic} upgraded to WebSocket, one masked text frame per
//    event. There are no replies: the socket is the flow control
//    (non-blocking writes, poll for POLLOUT), and an event counts as
//    accepted once the kernel took all of its batch. Server pings are
//    answered between batches; messages from the server are taken as
//    acknowledgements (Nchan sends one per message) and counted; a server
//    close is an error.
#pragma once

#include <atomic>
#include <memory>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "io/socket.hpp"
#include "tls_client.hpp"
#include "ws_frame_scanner.hpp"

namespace sluice::bench {

enum class PublishMode : std::uint8_t { post, ws };

[[nodiscard]] std::string publish_mode_name(PublishMode mode);  // "post", "ws"

struct PublisherOptions {
  io::Endpoint server;
  std::string topic = "bench";
  std::string token;  // set: sent as ?token= on the POST target and the upgrade (sluiced's auth.mode=jwt)
  std::string event;              // ?event= name; empty: none (post only)
  PublishMode mode = PublishMode::post;
  // Set: publish over TLS (HTTP/1.1 by ALPN, POST or WebSocket).
  std::shared_ptr<const TlsClient> tls;
  std::uint32_t index = 0;        // publisher index written in every payload, < kMaxPublishers
  std::size_t size = 64;          // payload bytes
  double rate = 0;                // requests/s; 0: as fast as replies come back
  std::size_t pipeline = 64;      // events per write
  std::size_t window = 256;       // unanswered requests at most (post)
  // post: resend a refused event (503 while the server catches up) until
  // it is taken; forces pipeline and window to 1 in post mode.
  bool retry_refused = false;
  // Stop after this many replies (ws: events written); 0: until stop(). In
  // ws mode the publisher then closes and waits (2 s at most) for the
  // server's close, so that everything it sent was taken.
  std::uint64_t max_events = 0;
  // Closed loop (bulk): issue no more than `max_ahead` events beyond what
  // the reader has counted in `delivered`, so that the stream runs as fast
  // as it is read and never trips a server's slow-consumer policy.
  const std::atomic<std::uint64_t>* delivered = nullptr;
  std::uint64_t max_ahead = 0;
  // What `delivered` counts per event this publisher issues: the number of
  // subscribers times publishers, when it is the sum over every subscriber.
  std::uint64_t delivered_per_event = 1;
  // Subscribers the server cut off read no more: set, the closed loop
  // follows those still reading, whose share of `delivered` is what it
  // counts less `closed_events` (what the ended streams had read), over
  // `delivered_per_event` less `closed_streams` per publisher. Unset, a cut
  // stream would hold the publisher back for good.
  const std::atomic<std::uint64_t>* closed_streams = nullptr;
  const std::atomic<std::uint64_t>* closed_events = nullptr;
  std::uint64_t publishers = 1;
  // How often a publisher held by max_ahead looks at `delivered` again (the
  // readers' progress raises no event): well under the time the server
  // takes to drain max_ahead events, or the publisher sets the pace.
  std::uint64_t ahead_poll_ns = 1'000'000;
};

struct PublisherCounters {
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> accepted{0};  // 2xx replies; ws: events the kernel took
  std::atomic<std::uint64_t> refused{0};   // other replies (503 when the server is full), retried or not
  std::atomic<std::uint64_t> acks{0};      // ws: messages the server sent back
};

class Publisher : private WsFrameHandler {
 public:
  explicit Publisher(const PublisherOptions& options);
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Runs on the calling thread until max_events replies, stop(), an error,
  // or `deadline_ns`. Returns false on a connection or protocol error.
  bool run(std::uint64_t deadline_ns);
  // Runs run() on a thread of its own.
  void start(std::uint64_t deadline_ns);
  void stop();  // thread-safe; joins the thread start() made
  // Issues no more events, waits (until run()'s deadline at most) for the
  // replies to those issued, then joins like stop(): afterwards every
  // event sent was answered, so `accepted` is exactly what the server took.
  void finish();

  [[nodiscard]] const PublisherCounters& counters() const { return counters_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  bool connect();
  bool connect_ws();
  std::size_t batch_allowed(std::uint64_t now) const;
  void fill(std::size_t count, std::uint64_t now);
  void fill_post(std::size_t count);
  bool fill_ws(std::size_t count, std::uint64_t now);
  bool flush();
  bool read_input();
  bool reconnect_after_close();
  bool drain_replies(std::string_view bytes);
  bool scan_ws(std::string_view bytes);
  void close_ws(bool wait);
  void on_message(bool text, std::string_view payload) override;
  void on_ping(std::string_view payload) override;
  void on_close(std::uint16_t code, std::string_view reason) override;
  std::uint64_t wait_ns(std::uint64_t now, std::uint64_t deadline) const;
  bool fail(const char* why);

  PublisherOptions options_;
  PublisherCounters counters_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finishing_{false};
  std::thread thread_;
  int fd_ = -1;
  Channel channel_;
  std::string request_;       // post: one request; the payload starts at stamp_offset_
  std::size_t stamp_offset_ = 0;
  std::string payload_;       // ws: one payload, restamped per frame
  std::string out_;           // bytes waiting to be written
  std::size_t out_done_ = 0;
  std::string in_;            // post: reply bytes not parsed yet
  std::string control_;       // ws: pongs, sent before the next batch
  WsFrameScanner scanner_;    // ws: what the server sends back
  std::string ws_error_;      // ws: set by the scanner's callbacks
  bool ws_closed_ = false;    // ws: the server's close arrived
  bool closing_ = false;      // ws: our close was sent; the server's is the answer
  std::uint64_t issued_ = 0;
  std::uint64_t answered_ = 0;
  std::uint64_t answered_here_ = 0;  // post: replies on the current connection
  std::uint64_t started_ns_ = 0;
  std::string error_;
};

}  // namespace sluice::bench
