#include "session/sse_stream.hpp"

#include <chrono>
#include <cstdio>
#include <string>

#include "hub/hub.hpp"
#include "proto/random_bytes.hpp"
#include "session/behind_stream.hpp"
#include "session/peer.hpp"
#include "session/response.hpp"
#include "session/services.hpp"

namespace sluice::session {

namespace {

// What a client held for its topics' place is told when the server stops.
constexpr std::string_view kShuttingDownUnplaced =
    "server shutting down before the topic was placed, retry later";

}  // namespace

SseStream::SseStream(conn::Outlet& outlet, LoopServices& services, Peer& peer, SseCarrier carrier,
                     HeldResponse* response)
    : outlet_(outlet),
      services_(services),
      subscriptions_(services, outlet, *this, hub::WireForm::sse, peer.topic_allowance()),
      carrier_(carrier),
      response_(response),
      valid_until_(peer.valid_until()) {}

SseStream::~SseStream() { services_.heartbeat().remove(this); }

void SseStream::open(buf::FrameRef head, std::span<const std::string> topics, std::optional<Policy> requested,
                     std::string_view last_id) {
  if (!head) return outlet_.close_now(conn::CloseReason::io_error);
  head_ = std::move(head);
  ++services_.counters().streams;
  if (carrier_ == SseCarrier::connection) {
    services_.metrics().connections_of(metrics::Transport::http).dec();
    services_.metrics().connections_of(metrics::Transport::sse).inc();
  }
  counted_ = true;
  // Ids count per topic and do not name theirs, so one Last-Event-ID
  // cannot say where each of several topics stopped: such a stream joins
  // every topic live and tells each (an `ambiguous-id` reset) rather than
  // letting a browser's reconnect skip what it missed without a word.
  const bool resumable = topics.size() == 1;
  // A stream whose topics this node's broker reader has not all placed yet
  // sends its head once they are (placed()): a client that has its head
  // and then publishes, on any node, gets the event. The head is queued
  // before anything else can be (each way the stream ends sends it first).
  // The events of a topic come only after its place; those of a topic
  // placed while another waits are queued but not written before the head
  // (write_queued()); over HTTP/2 nothing of the stream is written before
  // its HEADERS (response_), which go with the head.
  const bool may_wait = resumable || carrier_ == SseCarrier::connection || response_ != nullptr;
  if (!may_wait && !send_head()) return;
  for (const std::string& topic : topics) {
    if (outlet_.ended()) return;
    const Subscriptions::JoinResult joined = subscriptions_.join(topic, requested, resumable ? last_id : "");
    if (joined.status == Subscriptions::JoinStatus::too_many) {
      return refuse("too many topics on this connection (topics.max_per_connection)");
    }
    if (joined.status == Subscriptions::JoinStatus::refused) return refuse(services_.answer(joined.refusal).text);
    if (!resumable && !last_id.empty()) subscriptions_.tell_reset(topic, "ambiguous-id", last_id);
    if (may_wait && joined.awaiting) ++unplaced_;
  }
  awaiting_ = unplaced_ > 0;
  if (awaiting_) awaiting_since_ = services_.loop().now();
  if (!awaiting_ && !outlet_.ended()) (void)send_head();
}

// While the head waits, data (events of a topic placed already, the
// notices that go with them) stays queued: it may not precede the head.
conn::FlushResult SseStream::write_queued(conn::Writer& writer, conn::OutQueue& queue,
                                          conn::DataAllowance allowance) {
  if (head_) return queue.flush(writer, {.bytes = 0, .one_frame = false});
  return queue.flush(writer, allowance);
}

// The head, once, ahead of anything else the stream says: while it is held
// nothing can be queued but what ends the stream, and each of those sends
// it first. The heartbeat starts with it.
bool SseStream::send_head() {
  if (!head_) return true;
  if ((response_ != nullptr && !response_->respond(200)) ||
      outlet_.send_control(std::move(head_)) != conn::EnqueueStatus::ok) {
    outlet_.close_now(conn::CloseReason::io_error);
    return false;
  }
  head_ = {};
  awaiting_ = false;
  unplaced_ = 0;
  access_line_.write(200, services_.loop().now());
  services_.heartbeat().add(this);
  outlet_.want_flush();
  return true;
}

void SseStream::placed(std::uint32_t, std::uint64_t, std::uint64_t) {
  if (unplaced_ > 0) --unplaced_;
  if (awaiting_ && unplaced_ == 0 && !outlet_.ended()) (void)send_head();
}

void SseStream::check_placement(io::Loop::Clock::time_point now) {
  const auto limit = std::chrono::milliseconds(services_.config().broker.placement_timeout_ms);
  if (!awaiting_ || outlet_.ended() || now - awaiting_since_ < limit) return;
  refuse_unplaced(kNotPlacedInTime, conn::CloseReason::timeout);
}

// The client has no head yet (over HTTP/2, no HEADERS), so it can still be
// given a plain refusal, which a retrying client (or its load balancer)
// acts on.
void SseStream::refuse_unplaced(std::string_view reason, conn::CloseReason why) {
  subscriptions_.leave_all();
  head_ = {};
  awaiting_ = false;
  unplaced_ = 0;
  // Events of the topics placed meanwhile: none went out, none may now.
  while (outlet_.queue().drop_oldest_data()) {
  }
  const std::string body = std::string(reason) + "\n";
  // Over HTTP/2 the status and Retry-After are the HEADERS; the body alone
  // is the stream's.
  buf::FrameRef refusal =
      response_ != nullptr
          ? buf::make_frame(services_.pool(), buf::Lane::control, body)
          : make_response(services_.pool(),
                          {.status = 503, .body = body, .keep_alive = false, .extra_headers = "Retry-After: 1\r\n"});
  if (!refusal || (response_ != nullptr && !response_->respond(503)) ||
      outlet_.send_control(std::move(refusal)) != conn::EnqueueStatus::ok) {
    return outlet_.close_now(conn::CloseReason::io_error);
  }
  access_line_.write(503, services_.loop().now());
  outlet_.close_after_flush(why);
}

void SseStream::beat(const buf::FrameRef& frame) {
  // Not before the head; a full control lane already has bytes going out.
  if (!outlet_.closing() && !head_) (void)outlet_.send_control(frame);
}

// The stream's notices (sluice-dropped, sluice-reset) speak of one topic's
// events; an expiry ends the whole stream, which SSE says with a comment
// like its other ends. No event joins the queue after it; those already
// queued (published while the token was good) still go out, then the end.
void SseStream::tick(io::Loop::Clock::time_point now) {
  check_placement(now);
  if (!outlet_.ended() && valid_until_ && now >= *valid_until_) {
    subscriptions_.leave_all();
    refuse("token expired: reconnect with a fresh token");
  }
}

// A client told to reconnect does so elsewhere, once the node is out of
// its load balancer. Each stream is given its own delay, spread over
// sse.retry_ms .. 2 x sse.retry_ms, so that a node's thousands of clients
// do not all arrive at the others in the same instant. A stream whose
// head still waits for its topics' place is refused at once, as past
// broker.placement_timeout_ms: a head now would promise the events
// published after it, which this node will not deliver.
void SseStream::shutdown() {
  if (awaiting_ && !outlet_.ended()) return refuse_unplaced(kShuttingDownUnplaced, conn::CloseReason::shutdown);
  std::uint32_t spread = 0;
  if (!proto::random_bytes(std::span(reinterpret_cast<unsigned char*>(&spread), sizeof spread))) spread = 0;
  const auto base = static_cast<std::uint64_t>(services_.config().sse_retry_ms);
  const std::uint64_t retry = base + (base == 0 ? 0 : spread % (base + 1));
  char text[96];
  const int n = std::snprintf(text, sizeof text, ": server going away, reconnect\nretry: %llu\n\n",
                              static_cast<unsigned long long>(retry));
  buf::FrameRef hint =
      buf::make_frame(services_.pool(), buf::Lane::control, std::string_view(text, static_cast<std::size_t>(n)));
  if (hint && send_head()) (void)outlet_.send_control(std::move(hint));
}

// A request still unanswered (its line not written) lost its client.
void SseStream::on_closed() {
  access_line_.write(log::kClientGoneStatus, services_.loop().now());
  subscriptions_.leave_all();
  services_.heartbeat().remove(this);
  if (counted_) {
    --services_.counters().streams;
    if (carrier_ == SseCarrier::connection) {
      services_.metrics().connections_of(metrics::Transport::sse).dec();
      services_.metrics().connections_of(metrics::Transport::http).inc();
    }
  }
  counted_ = false;
}

// An SSE event named sluice-KIND whose data is the JSON object.
bool SseStream::append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) {
  out.append("event: sluice-");
  out.append(kind);
  out.append("\ndata: {");
  out.append(json_fields);
  return out.append("}\n\n");
}

// The subscriber gets what is queued, then the end of the stream, with a
// longer `retry:` to spread the reconnects of many cut-off clients.
void SseStream::cut_off() {
  subscriptions_.leave_all();
  char text[96];
  const int n = std::snprintf(text, sizeof text, ": slow consumer, resume from the last id\nretry: %lld\n\n",
                              static_cast<long long>(services_.config().policy.slow_retry_ms));
  buf::FrameRef hint =
      buf::make_frame(services_.pool(), buf::Lane::control, std::string_view(text, static_cast<std::size_t>(n)));
  if (!send_head()) return;
  if (hint) (void)outlet_.send_control(std::move(hint));
  outlet_.close_after_flush(conn::CloseReason::slow_consumer);
}

// A stream whose head waits for its topics' place is held back by the
// server, not by its reader; it has its own deadline for that.
std::size_t SseStream::shed_behind(std::uint32_t looks) {
  if (head_ || !let_go_if_behind(outlet_, services_, looks)) return 0;
  cut_off();
  return 1;
}

// A stream whose head has gone out can only be ended, with a comment that
// says why.
void SseStream::refuse(std::string_view why) {
  const std::string text = ": " + std::string(why) + "\n\n";
  buf::FrameRef comment = buf::make_frame(services_.pool(), buf::Lane::control, text);
  if (!send_head()) return;
  if (comment) (void)outlet_.send_control(std::move(comment));
  outlet_.close_after_flush(conn::CloseReason::protocol);
}

}  // namespace sluice::session
