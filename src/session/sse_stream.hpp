// Owns: SseStream, a connection that has become a Server-Sent Events
// stream (GET /sse): the stream head, its topics' events in SSE form,
// notices as `sluice-*` events, heartbeats, and how it ends when the client
// is too slow (a longer `retry:` and the end of the stream, so that it
// resumes from its last id) or when the token it was opened with expires
// (a comment saying so, and the end: an EventSource cannot send a new
// token on an open stream, so it reconnects with a fresh one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "conn/outlet.hpp"
#include "delivery/policy.hpp"
#include "session/held_access_line.hpp"
#include "session/held_response.hpp"
#include "session/phase.hpp"
#include "session/subscriptions.hpp"

namespace sluice::session {

class LoopServices;
class Peer;

// What carries the stream: a whole HTTP/1.1 connection (which is counted
// as an SSE connection while the stream lasts), or one HTTP/2 stream among
// others on its connection.
enum class SseCarrier : std::uint8_t { connection, h2_stream };

class SseStream final : public Phase, private Subscriptions::Owner {
 public:
  // Topics the stream makes are charged to the client's allowance; the
  // stream ends when the credentials `peer` holds now expire: those of the
  // request that opened it (over HTTP/2 the connection's Peer goes on to
  // hold each later request's, which are not this stream's).
  // `response`: the HTTP/2 stream's HEADERS, sent with the head (null for
  // an HTTP/1.1 stream, whose head holds its response head).
  SseStream(conn::Outlet& outlet, LoopServices& services, Peer& peer, SseCarrier carrier = SseCarrier::connection,
            HeldResponse* response = nullptr);
  ~SseStream() override;

  // Sends `head` (the carrier's: an HTTP/1.1 response head and the first
  // `retry:`, or over HTTP/2, whose response headers are HEADERS, the
  // `retry:` alone; with a broker, once the topics are placed), and joins
  // `topics`, replaying what came after
  // `last_id` (a stream of several topics is told, per topic, that one id
  // cannot resume it). A topic that cannot be joined ends the stream with
  // a comment saying why.
  void open(buf::FrameRef head, std::span<const std::string> topics, std::optional<Policy> requested,
            std::string_view last_id);

  // The head has not gone yet: the stream's answer waits for its topics'
  // place.
  [[nodiscard]] bool head_held() const { return static_cast<bool>(head_); }
  // Over HTTP/1.1, the access log's line of the request, held (by the
  // request phase) while the head is: written when the head goes (200), a
  // refusal goes instead (503), or the connection closes before either
  // (log::kClientGoneStatus).
  HeldAccessLine& access_line() { return access_line_; }

  // The loop's heartbeat, one frame shared by every stream.
  void beat(const buf::FrameRef& frame);

  void on_input(std::string& input) override { input.clear(); }  // a stream's client has nothing more to say
  // The owner's sweep (an HTTP/2 connection's, for each of its streams):
  // the placement's deadline and the credentials'.
  void tick(io::Loop::Clock::time_point now) override;
  // Notices of drops wait for the head (they go in the control lane).
  void before_flush() override {
    if (!head_) subscriptions_.before_flush();
  }
  conn::FlushResult write_queued(conn::Writer& writer, conn::OutQueue& queue, conn::DataAllowance allowance) override;
  void on_drained() override { subscriptions_.on_drained(); }
  void on_flushed() override { subscriptions_.on_flushed(); }
  std::size_t shed_behind(std::uint32_t looks) override;
  [[nodiscard]] View view() const override { return {"sse", subscriptions_.topics()}; }
  // The server is going away (stopped, drained, or the admin API closed
  // this connection): a `retry:` hint, then the end of the stream; or, to
  // a stream whose head is held, the 503 a placement timeout gives.
  void shutdown() override;
  void on_closed() override;

 private:
  bool append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) override;
  void cut_off() override;
  // A head held for the topic's place past broker.placement_timeout_ms
  // (Redis unreachable) is not sent: the client gets a 503 instead (over
  // HTTP/2, as the stream's HEADERS).
  void check_placement(io::Loop::Clock::time_point now);
  void placed(std::uint32_t cookie, std::uint64_t epoch, std::uint64_t newest) override;
  // Queues the head if it is still held; false when the stream had to end.
  bool send_head();
  // A 503 with Retry-After and `reason` instead of the held head (over
  // HTTP/2, as the stream's HEADERS); the stream leaves its topics and ends.
  void refuse_unplaced(std::string_view reason, conn::CloseReason why);
  // Ends the stream after what is queued, with a comment saying why.
  void refuse(std::string_view why);

  conn::Outlet& outlet_;
  LoopServices& services_;
  Subscriptions subscriptions_;
  const SseCarrier carrier_;
  HeldResponse* const response_;
  buf::FrameRef head_;      // held until the stream's topic is placed (open())
  bool awaiting_ = false;   // head_ waits for placed()
  std::size_t unplaced_ = 0;  // topics joined awaiting their place, not yet placed
  io::Loop::Clock::time_point awaiting_since_{};
  std::optional<io::Loop::Clock::time_point> valid_until_;  // the opening request's credentials expire
  bool counted_ = false;
  HeldAccessLine access_line_;  // none held: nothing to log, or logged when routed
};

}  // namespace sluice::session
