// Owns: the two halves of a history replay as the bench sees them: one
// publish whose reply is read whole for the id the server gave the event,
// and ReplayStream, an SSE subscriber that opens with ?lastEventId= on a
// blocking socket and tells replayed events (they carry an id) from server
// notices (events without one, such as sluiced's sluice-reset, which says
// the history cannot be replayed). One connection per object, read on the
// caller's thread with a deadline on every wait.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/socket.hpp"
#include "sse_scanner.hpp"
#include "tls_client.hpp"

namespace sluice::bench {

struct PublishAnswer {
  int status = 0;      // 0: no reply came
  std::string id;      // the reply's JSON "id", empty when it has none
  std::string body;    // the whole reply body
  std::string error;   // why there is no reply
};

// POSTs `payload` to /pub/{topic} on a fresh connection (over TLS when
// `tls` is set) and reads the reply until `deadline_ns`.
[[nodiscard]] PublishAnswer publish_one(const io::Endpoint& server, const std::string& topic,
                                        std::string_view payload, std::uint64_t deadline_ns,
                                        const TlsClient* tls = nullptr);

// Posts to `topic`-probe until the server takes a publish (200) or
// `deadline_ns` passes: a node with a broker answers 503 until its link to
// Redis is up. "" once taken, else a line with the last status.
[[nodiscard]] std::string wait_publishable(const io::Endpoint& server, const std::string& topic, std::uint64_t deadline_ns);

// Whether the server makes its own events (sol-server's stream mode): its
// reply to a publish on `topic`-probe, which nobody reads, says
// "generator":true.
[[nodiscard]] bool server_generates(const io::Endpoint& server, const std::string& topic,
                                    const TlsClient* tls = nullptr);

class ReplayStream final : private SseHandler {
 public:
  ReplayStream() = default;
  ~ReplayStream();
  ReplayStream(const ReplayStream&) = delete;
  ReplayStream& operator=(const ReplayStream&) = delete;

  // Connects and sends GET /sse/{topic}?lastEventId={last_id}. False when
  // the connection failed (error() says so).
  bool open(const io::Endpoint& server, const std::string& topic, const std::string& last_id);
  // Reads until the 200 text/event-stream head has arrived. False on a bad
  // head, an error, or the deadline.
  bool read_head(std::uint64_t deadline_ns);
  // Reads until `want` events with an id have arrived, or a notice, the end
  // of the stream, an error, or the deadline, whichever comes first. True
  // when the `want` events are there.
  bool read_events(std::uint64_t want, std::uint64_t deadline_ns);

  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] std::uint64_t first_seq() const { return first_seq_; }
  [[nodiscard]] std::uint64_t gaps() const { return gaps_; }
  [[nodiscard]] const std::string& first_data() const { return first_data_; }
  [[nodiscard]] std::uint64_t requested_ns() const { return requested_ns_; }
  [[nodiscard]] std::uint64_t first_event_ns() const { return first_event_ns_; }
  // When the event that made read_events() true was read.
  [[nodiscard]] std::uint64_t wanted_event_ns() const { return wanted_event_ns_; }
  // Segments received since the request went out, counted after the read
  // that completed the wanted events (the head's segment included).
  [[nodiscard]] std::uint64_t segments() const { return segments_; }
  // The data of the first event without an id, empty when none came.
  [[nodiscard]] const std::string& notice() const { return notice_; }
  [[nodiscard]] bool ended() const { return ended_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  void on_event(const SseEvent& event) override;
  // One read of whatever is there, waiting until `deadline_ns`. False on
  // timeout, EOF (ended()) or error.
  bool read_some(std::uint64_t deadline_ns, std::string& into);
  bool fail(std::string why);

  int fd_ = -1;
  std::string head_;
  std::string chunk_;
  SseScanner scanner_;
  std::uint64_t segments_before_ = 0;
  std::uint64_t segments_ = 0;
  std::uint64_t requested_ns_ = 0;
  std::uint64_t now_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t first_seq_ = 0;
  std::uint64_t last_seq_ = 0;
  std::uint64_t gaps_ = 0;
  std::uint64_t first_event_ns_ = 0;
  std::uint64_t wanted_event_ns_ = 0;
  std::uint64_t want_ = 0;
  std::string first_data_;
  std::string notice_;
  bool ended_ = false;
  std::string error_;
};

}  // namespace sluice::bench
