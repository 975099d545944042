#include "session/ws_stream.hpp"

#include <string>
#include <utility>

#include "session/behind_stream.hpp"
#include "session/hub_answers.hpp"
#include "session/peer.hpp"
#include "session/services.hpp"

namespace sluice::session {

using proto::ws::CloseCode;
using proto::ws::DecodeStatus;

namespace {

// A connection's one stream keeps its buffers' resting size uncharged, as
// its fixed cost; one of many streams on a connection (HTTP/2) is charged
// for all it holds, or one connection could keep h2.max_concurrent_streams
// resting buffers outside its account.
std::size_t resting_uncharged(const WsSetup& setup) { return setup.whole_connection ? buf::kRestingCapacity : 0; }

// The close reason (1009) of a message over the decoder's size limit, as
// sent or once inflated, naming the server's key; the decoder's own words
// for its other errors.
const char* close_reason(const proto::ws::DecodeResult& r) {
  if (r.error == proto::ws::kMessageOverSizeLimit) return "message over ws.max_message";
  if (r.error == proto::ws::kMessageInflatesOverSizeLimit) return "message inflates past ws.max_message";
  return r.error;
}

}  // namespace

WsStream::WsStream(const WsSetup& setup)
    : outlet_(setup.outlet),
      services_(setup.services),
      peer_(setup.peer),
      memory_(setup.memory),
      decoder_(proto::ws::DecoderLimits{
          .max_message_size = static_cast<std::size_t>(setup.services.config().ws.max_message),
          .account = setup.memory,
          .uncharged = resting_uncharged(setup)}),
      last_ping_(setup.outlet.loop().now()),
      waiting_message_(setup.memory, resting_uncharged(setup)),
      whole_connection_(setup.whole_connection) {
  deflate_ = setup.deflate.enabled && decoder_.set_deflate(setup.deflate);
  ++services_.counters().streams;
  if (whole_connection_) {
    services_.metrics().connections_of(metrics::Transport::http).dec();
    services_.metrics().connections_of(metrics::Transport::ws).inc();
  }
}

void WsStream::on_closed() {
  if (round_) round_->close();
  let_go();
  --services_.counters().streams;
  if (whole_connection_) {
    services_.metrics().connections_of(metrics::Transport::ws).dec();
    services_.metrics().connections_of(metrics::Transport::http).inc();
  }
}

void WsStream::on_input(std::string& input) {
  // Nothing read after the credentials expired is acted on, however long
  // until the sweep would have noticed: a publisher stops at its token's
  // exp, not up to a sweep later.
  if (!outlet_.ended() && peer_.credentials_expired(outlet_.loop().now())) expire();
  if (held_ && !waiting()) held_ = false;  // resumed: a later hold is timed afresh
  fed_ = true;
  std::size_t used = 0;
  bool completed = false;
  while (!outlet_.ended() && !waiting() && used < input.size()) {
    const proto::ws::DecodeResult r = decoder_.feed(std::span<const char>(input.data() + used, input.size() - used));
    used += r.consumed;
    switch (r.status) {
      case DecodeStatus::need_more:
        break;
      case DecodeStatus::message:
        completed = true;
        handle_message(r.opcode, r.payload);
        continue;
      case DecodeStatus::ping:
        on_ping(r.payload);
        continue;
      case DecodeStatus::pong:
        awaiting_pong_ = false;
        if (std::string_view(r.payload.data(), r.payload.size()) == kReadReceiptPayload) outlet_.read_receipt();
        continue;
      case DecodeStatus::close:
        end(r.close_code == CloseCode::no_status ? CloseCode::normal : r.close_code, {}, conn::CloseReason::peer);
        break;
      case DecodeStatus::error:
        ++services_.counters().protocol_errors;
        services_.metrics().protocol_errors.add();
        end(r.close_code, close_reason(r), conn::CloseReason::protocol);
        break;
    }
    break;
  }
  input.erase(0, used);
  // A message larger than the decoder keeps at rest has been acted on: its
  // buffer goes back now, held or not. What a hold keeps of it (a publish
  // waiting for pool room, a message waiting for its decision) is a copy
  // of its own, so the decoder's was waiting for nothing: a hold ends with
  // no further call here when no byte follows, and the buffer stayed grown,
  // and charged, for the connection's life.
  if (completed) decoder_.trim();
  // Input that stopped on a hold is read on when the hold ends: a drain,
  // or else the next tick that finds it over (see tick()).
  if (!held_ && waiting()) {
    held_ = true;
    held_since_ = outlet_.loop().now();
  }
  // The clock of a message starts with its first byte: a message that
  // completed since the last call ends the previous one's.
  const bool mid = decoder_.mid_message();
  if (mid && (!mid_message_ || completed)) message_since_ = outlet_.loop().now();
  mid_message_ = mid;
}

void WsStream::handle_message(proto::ws::Opcode opcode, std::span<const char> payload) {
  // Made at the first message: a stream that only follows its topics
  // never asks in a round of its own.
  if (!round_) round_ = std::make_unique<AuthRound>(services_);
  peer_.begin_asking(*round_, *this);
  on_message(opcode, payload);
  if (!peer_.finish_asking()) return;
  // The decoder reuses its buffer for the next message: the waiting one is
  // copied out (once per question, never per event), and charged, for a
  // client could otherwise hold a second message's worth for as long as
  // its decision takes.
  waiting_opcode_ = opcode;
  waiting_message_.clear();
  const buf::Growth growth = waiting_message_.append(std::string_view(payload.data(), payload.size()), payload.size());
  if (growth != buf::Growth::ok) refuse_for_memory(growth);
}

void WsStream::auth_answered() {
  if (outlet_.ended()) return;
  // Moved out with its charge: handling it may keep another message.
  const buf::ChargedBuffer message = std::move(waiting_message_);
  handle_message(waiting_opcode_, message.view());
  if (!waiting() && !outlet_.ended()) {
    held_ = false;
    outlet_.resume_input();  // what waited behind the message is read now
  }
}

// A flood of pings meets a full control lane: RFC 6455 5.5.3 lets us answer
// only the latest, so the rest go unanswered, not queued.
void WsStream::on_ping(std::span<const char> payload) {
  buf::FrameRef pong = proto::ws::make_pong_frame(services_.pool(), payload);
  if (pong) (void)outlet_.send_control(std::move(pong));
}

void WsStream::tick(io::Loop::Clock::time_point now) {
  const auto& ws = services_.config().ws;
  // Whatever the stream is doing, a publisher held for room included.
  if (peer_.credentials_expired(now)) return expire();
  sweep_waits(now);
  if (round_) round_->sweep(now);
  if (waiting()) {
    if (!held_) held_since_ = now;
    held_ = true;
    // A client that leaves its replies unread is not listening: it gets
    // the time a pong would, then its connection is closed.
    if (input_held() && held_by_peer() && now - held_since_ > std::chrono::milliseconds(ws.pong_timeout_ms)) {
      return outlet_.close_now(conn::CloseReason::timeout);
    }
    // Its pong may sit unread behind the held input: not its fault.
    awaiting_pong_ = false;
    last_ping_ = now;
    return;
  }
  if (held_) {
    held_ = false;
    outlet_.resume_input();  // what waited behind the hold is read now
  }
  // A message begun and never finished would hold the decoder's buffer
  // (up to ws.max_message) for as long as the client likes.
  if (mid_message_ && !outlet_.ended() && now - message_since_ > std::chrono::milliseconds(ws.message_timeout_ms)) {
    return end(CloseCode::policy_violation, "message not completed in time", conn::CloseReason::timeout);
  }
  // One of a connection's many streams (HTTP/2) is charged for its resting
  // buffers: once a sweep passes with nothing sent on it they go back, so
  // an idle stream holds none (a client could otherwise keep a message's
  // worth on each of its streams, idle, for their lives). A stream that is
  // sent to keeps them from message to message.
  if (!whole_connection_ && !std::exchange(fed_, false)) {
    decoder_.rest();
    if (!waiting()) waiting_message_.trim(0);
  }
  const auto since_ping = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_ping_).count();
  if (awaiting_pong_) {
    if (since_ping > ws.pong_timeout_ms) outlet_.close_now(conn::CloseReason::timeout);
    return;
  }
  if (since_ping < ws.ping_interval_ms) return;
  buf::FrameRef ping = proto::ws::make_ping_frame(services_.pool(), {});
  if (ping && outlet_.send_control(std::move(ping)) == conn::EnqueueStatus::ok) {
    last_ping_ = now;
    awaiting_pong_ = true;
  }
}

// The server stops, or an operator closed the connection (the admin API):
// either way the client is to come back, so the reason says that much.
void WsStream::shutdown() { send_close(CloseCode::going_away, "server going away, reconnect"); }

bool WsStream::on_posted(std::int32_t, buf::FrameRef& frame) {
  if (close_sent_) return true;  // taken, and dropped: nothing may follow a close
  if (outlet_.send_data(std::move(frame)) == conn::EnqueueStatus::ok) return true;
  ++services_.counters().slow_disconnects;
  cut_off();
  return true;
}

// The close goes right behind the frame on the wire.
std::size_t WsStream::shed_behind(std::uint32_t looks) {
  if (close_sent_ || !let_go_if_behind(outlet_, services_, looks)) return 0;
  cut_off();
  return 1;
}

void WsStream::cut_off() { end(CloseCode::policy_violation, "slow consumer", conn::CloseReason::slow_consumer); }

void WsStream::end(CloseCode code, std::string_view reason, conn::CloseReason why) {
  send_close(code, reason);
  outlet_.close_after_flush(why);
}

void WsStream::end_refused(hub::HubStatus status) {
  const HubAnswer answer = services().answer(status);
  end(answer.http_status == 503 ? CloseCode::try_again_later : CloseCode::policy_violation, answer.text,
      conn::CloseReason::protocol);
}

// 4000 + 401, as a refusal of the same token at the upgrade would be: the
// client fetches a fresh token and reconnects (resuming by id).
void WsStream::expire() {
  end(static_cast<CloseCode>(4401), "401 token expired", conn::CloseReason::protocol);
}

bool WsStream::end_if_publishing_off() {
  if (services().config().ws.client_publish != 0) return false;
  end(CloseCode::policy_violation, "publishing is switched off", conn::CloseReason::protocol);
  return true;
}

void WsStream::refuse_for_memory(buf::Growth growth) {
  const proto::ws::MemoryRefusal refusal = proto::ws::memory_refusal(growth);
  end(refusal.code, refusal.reason, conn::CloseReason::protocol);
}

void WsStream::send_close(CloseCode code, std::string_view reason) {
  if (close_sent_) return;
  close_sent_ = true;
  on_close_sent();
  buf::FrameRef close =
      proto::ws::make_close_frame(services_.pool(), code, reason.substr(0, proto::ws::kMaxCloseReason));
  if (close) outlet_.send_last(std::move(close));
}

void WsStream::refuse_unanswered(HeldResponse& response, std::string_view reason, conn::CloseReason why) {
  if (close_sent_) return;
  close_sent_ = true;
  on_close_sent();
  outlet_.queue().clear();
  const std::string body = std::string(reason) + "\n";
  buf::FrameRef frame = buf::make_frame(services_.pool(), buf::Lane::control, body);
  if (!frame || !response.respond(503) || outlet_.send_control(std::move(frame)) != conn::EnqueueStatus::ok) {
    return outlet_.close_now(conn::CloseReason::io_error);
  }
  outlet_.close_after_flush(why);
}

void WsStream::send_text(std::string_view text, buf::Lane lane) {
  buf::FrameRef frame =
      proto::ws::make_message_frame(services_.pool(), lane, proto::ws::Opcode::text, std::span<const char>(text));
  if (!frame) return;
  (void)(lane == buf::Lane::control ? outlet_.send_control(std::move(frame)) : outlet_.send_data(std::move(frame)));
}

bool WsStream::append_json_notice(buf::FrameBuilder& out, std::string_view opening, std::string_view kind,
                                  std::string_view json_fields) {
  notice_scratch_.assign(opening).append(kind).append("\",").append(json_fields).append("}");
  return proto::ws::encode_frame(proto::ws::Opcode::text, true, false, notice_scratch_, out);
}

}  // namespace sluice::session
