#include "session/sse_stream.hpp"

#include <cstdio>

#include "hub/hub.hpp"
#include "session/services.hpp"

namespace sluice::session {

SseStream::SseStream(conn::Outlet& outlet, LoopServices& services, hub::TopicAllowance& allowance,
                     SseCarrier carrier)
    : outlet_(outlet),
      services_(services),
      subscriptions_(services, outlet, *this, hub::WireForm::sse, allowance),
      carrier_(carrier) {}

SseStream::~SseStream() { services_.heartbeat().remove(this); }

void SseStream::open(buf::FrameRef head, std::span<const std::string> topics, std::optional<Policy> requested,
                     std::string_view last_id) {
  // The head goes first: a replay may fill the send budget and cut the
  // stream off, and the client must still see a well-formed stream end.
  if (!head || outlet_.send_control(std::move(head)) != conn::EnqueueStatus::ok) {
    return outlet_.close_now(conn::CloseReason::io_error);
  }
  ++services_.counters().streams;
  if (carrier_ == SseCarrier::connection) {
    services_.metrics().connections_of(metrics::Transport::http).dec();
    services_.metrics().connections_of(metrics::Transport::sse).inc();
  }
  counted_ = true;
  services_.heartbeat().add(this);
  // Ids count per topic and do not name theirs, so one Last-Event-ID
  // cannot say where each of several topics stopped: such a stream joins
  // every topic live and tells each (an `ambiguous-id` reset) rather than
  // letting a browser's reconnect skip what it missed without a word.
  const bool resumable = topics.size() == 1;
  for (const std::string& topic : topics) {
    if (outlet_.ended()) return;
    const Subscriptions::JoinResult joined = subscriptions_.join(topic, requested, resumable ? last_id : "");
    if (joined.status == Subscriptions::JoinStatus::too_many) return refuse("too many topics on this connection");
    if (joined.status == Subscriptions::JoinStatus::refused) return refuse(services_.answer(joined.refusal).text);
    if (!resumable && !last_id.empty()) subscriptions_.tell_reset(topic, "ambiguous-id", last_id);
  }
}

void SseStream::beat(const buf::FrameRef& frame) {
  if (!outlet_.closing()) (void)outlet_.send_control(frame);  // a full control lane already has bytes going out
}

void SseStream::on_closed() {
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
  if (hint) (void)outlet_.send_control(std::move(hint));
  outlet_.close_after_flush(conn::CloseReason::slow_consumer);
}

// A stream whose head has gone out can only be ended, with a comment that
// says why.
void SseStream::refuse(std::string_view why) {
  const std::string text = ": " + std::string(why) + "\n\n";
  buf::FrameRef comment = buf::make_frame(services_.pool(), buf::Lane::control, text);
  if (comment) (void)outlet_.send_control(std::move(comment));
  outlet_.close_after_flush(conn::CloseReason::protocol);
}

}  // namespace sluice::session
