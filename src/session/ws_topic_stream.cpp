#include "session/ws_topic_stream.hpp"

#include <chrono>
#include <string>
#include <utility>

#include "hub/hub.hpp"
#include "log/access.hpp"
#include "session/peer.hpp"
#include "session/services.hpp"

namespace sluice::session {

using proto::ws::CloseCode;

WsTopicStream::WsTopicStream(const WsSetup& setup, std::string topic)
    : WsStream(setup),
      topic_(std::move(topic)),
      subscriptions_(setup.services, setup.outlet, *this, hub::ws_message_form(deflate()),
                     setup.peer.topic_allowance()),
      response_(setup.response) {}

void WsTopicStream::open(std::string_view last_id, std::optional<Policy> policy) {
  const Subscriptions::JoinResult joined = subscriptions_.join(topic_, policy, last_id);
  if (joined.status != Subscriptions::JoinStatus::ok) {
    return end_refused(joined.refusal);
  }
  awaiting_ = joined.awaiting;
  if (awaiting_) {
    awaiting_since_ = services().loop().now();
  } else {
    answer();
  }
}

// A stream's HTTP/2 HEADERS go with the close that ends it unanswered.
void WsTopicStream::on_close_sent() {
  subscriptions_.stop();
  answer();
}

void WsTopicStream::answer() {
  HeldResponse* const response = std::exchange(response_, nullptr);
  if (response != nullptr && !response->respond(200)) outlet().close_now(conn::CloseReason::io_error);
}

// Nothing leaves while the topic waits for its place, the 101 included; an
// ended stream (its close frame queued) flushes as any other. (Over HTTP/2
// the connection writes the stream's queue, whose bytes wait for its
// HEADERS.)
conn::FlushResult WsTopicStream::write_queued(conn::Writer& writer, conn::OutQueue& queue,
                                              conn::DataAllowance allowance) {
  if (awaiting_ && !outlet().ended()) return {conn::FlushStatus::held};
  access_line_.write(101, services().loop().now());
  return queue.flush(writer, allowance);
}

void WsTopicStream::placed(std::uint32_t, std::uint64_t, std::uint64_t) {
  if (!awaiting_) return;
  awaiting_ = false;
  if (outlet().ended()) return;
  answer();
  outlet().want_flush();
  if (!input_held()) outlet().resume_input();
}

// Over HTTP/1.1 a refusal after the 101, as for a topic stream refused at
// its upgrade: 1013 (try again later) and "503 reason". Over HTTP/2 the
// stream has no answer yet, so its answer is the refusal: 503, as an SSE
// stream's HEADERS say when its topics were not placed in time.
void WsTopicStream::sweep_waits(io::Loop::Clock::time_point now) {
  const auto limit = std::chrono::milliseconds(services().config().broker.placement_timeout_ms);
  if (!awaiting_ || now - awaiting_since_ < limit) return;
  awaiting_ = false;
  subscriptions_.leave_all();
  if (HeldResponse* const response = std::exchange(response_, nullptr)) {
    return refuse_unanswered(*response, kNotPlacedInTime, conn::CloseReason::timeout);
  }
  end(CloseCode::try_again_later, "503 " + std::string(kNotPlacedInTime), conn::CloseReason::timeout);
}

void WsTopicStream::on_message(proto::ws::Opcode, std::span<const char> payload) {
  if (end_if_publishing_off()) return;
  if (read_only_) {
    return end(CloseCode::policy_violation, "a page on another origin may not publish: list it in ws.allowed_origins",
               conn::CloseReason::protocol);
  }
  // Most topic streams only read: the right to publish is asked for once,
  // when the client first uses it, and kept for the stream's life.
  if (!publisher_) {
    const AuthOutcome outcome = peer().authorize(server::Action::publish, topic_);
    if (outcome.is_pending()) return;  // the message is handed over again when the decision comes
    if (!outcome.allowed()) return end(outcome.close_code(), outcome.text(), conn::CloseReason::protocol);
    TopicPublisher::Owner& owner = *this;  // a private base, reachable here
    publisher_ = std::make_unique<TopicPublisher>(services(), outlet(), owner, topic_, peer().topic_allowance(),
                                                  memory(), memory_uncharged());
  }
  publisher_->publish(std::string_view(payload.data(), payload.size()));
}

// A 101 still held (its line not written) never went.
void WsTopicStream::let_go() {
  access_line_.write(log::kClientGoneStatus, services().loop().now());
  subscriptions_.leave_all();
  if (publisher_) publisher_->release();
}

void WsTopicStream::cut_off() {
  subscriptions_.leave_all();
  WsStream::cut_off();
}

bool WsTopicStream::append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) {
  return append_json_notice(out, "{\"sluice\":\"", kind, json_fields);
}

void WsTopicStream::publish_refused(hub::HubStatus status) {
  end_refused(status);
}

// 1013 (try again later): the message was not taken, and a publisher that
// reconnects later may well be.
void WsTopicStream::publish_failed(std::string_view reason) {
  end(CloseCode::try_again_later, reason, conn::CloseReason::protocol);
}

}  // namespace sluice::session
