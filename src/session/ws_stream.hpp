// Owns: WsStream, what every WebSocket stream shares once the upgrade is
// done: decoding the client's frames (fragments, masking, UTF-8,
// permessage-deflate, limits), answering pings, pinging a quiet client and
// closing one whose pong does not come, closing one whose credentials
// expired (4401), the close handshake, and frames the application sends
// through a ConnectionRef. A stream type derived from it says what a
// client's message means and how a notice looks.
//
// A message whose check waits for a decision given later (in the stream's
// own AuthRound: over HTTP/2 the connection's other streams go on) is kept
// (at most ws.max_message bytes, the decoder's own bound, charged to the
// connection's memory account like the decoder's buffer: one the account
// refuses is answered 1009 naming the limit) and nothing behind it is
// decoded; when the decision comes the message is handled again from the
// start, its checks given their recorded answers, and reading goes on.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "buf/charged_buffer.hpp"
#include "buf/frame.hpp"
#include "conn/outlet.hpp"
#include "hub/hub_types.hpp"
#include "proto/ws_close.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_deflate.hpp"
#include "proto/ws_encoder.hpp"
#include "session/held_response.hpp"
#include "session/peer.hpp"
#include "session/phase.hpp"

namespace sluice::session {

class LoopServices;

// What a WebSocket stream starts from: where its bytes go, the loop's
// services, what the handshake negotiated, and the client as the
// application sees it.
struct WsSetup {
  conn::Outlet& outlet;
  LoopServices& services;
  proto::ws::DeflateParams deflate;  // enabled == false when not negotiated
  Peer& peer;
  // The stream is the whole connection (HTTP/1.1, counted as a WebSocket
  // connection while it lasts), not one HTTP/2 stream among others.
  bool whole_connection = true;
  buf::MemoryAccount* memory = nullptr;  // what a message being joined is charged to
  // Over HTTP/2, the response a /ws/{topic} stream sends itself once its
  // topic is placed (WsTopicStream); null when it went with the upgrade.
  HeldResponse* response = nullptr;
};

class WsStream : public Phase, private AuthWaiter {
 public:
  ~WsStream() override = default;

  void on_input(std::string& input) final;
  // The client's FIN (over HTTP/2, its END_STREAM) ends what it sends, not
  // its reading: a message waiting for its decision, and those read behind
  // it, are handled first (the input resumes when the decision comes, and
  // the end is asked again). A close frame among them ends the stream.
  bool on_peer_eof() final { return waiting(); }
  // A stream that holds its input reads nothing more: its client's TCP
  // window fills instead of the input buffer.
  [[nodiscard]] bool holds_input() const final { return input_held(); }
  void tick(io::Loop::Clock::time_point now) final;
  std::size_t shed_behind(std::uint32_t looks) final;
  // A 1001 close frame: the server is going away.
  void shutdown() final;
  void on_closed() final;
  // The application's own message, under the same send budget as events;
  // past it the stream is cut off as slow. The stream is the one it was
  // posted to (its connection's whole, or its HTTP/2 stream).
  bool on_posted(std::int32_t stream, buf::FrameRef& frame) final;
  // A WebSocket that follows no topic (a publisher, an application's endpoint).
  [[nodiscard]] View view() const override { return {"ws", {}}; }
  // The connection's share has no room left to read the client's next
  // bytes (over TLS: a record buffer, see conn::Connection): the message
  // being sent cannot be taken, so it is refused as one the share cannot
  // hold, close 1009 naming the limit.
  void on_input_refused(buf::ChargeStatus status) final { refuse_for_memory(buf::growth_of(status)); }

  // Ends a stream that may not open (the authorizer refused it, or the
  // application's on_open failed) with `code` and `reason`, right behind
  // the upgrade's reply.
  void refuse(proto::ws::CloseCode code, std::string_view reason) {
    end(code, reason, conn::CloseReason::protocol);
  }
  // The close frame has been queued: nothing more may be.
  [[nodiscard]] bool close_sent() const { return close_sent_; }

 protected:
  explicit WsStream(const WsSetup& setup);

  // A whole message from the client (reassembled, inflated, UTF-8 checked).
  virtual void on_message(proto::ws::Opcode opcode, std::span<const char> payload) = 0;
  // While true no more input is decoded (a message waits to be published)
  // and no pong is awaited (it may sit unread behind that message).
  [[nodiscard]] virtual bool input_held() const { return false; }
  // The hold is the client's doing (it leaves its replies unread), not the
  // server's: one that lasts past ws.pong_timeout_ms closes the connection.
  [[nodiscard]] virtual bool held_by_peer() const { return false; }
  // The connection closed: let go of what the stream holds elsewhere
  // (topics, a held publish).
  virtual void let_go() {}
  // Called once, when the close frame is queued: nothing may follow it.
  virtual void on_close_sent() {}
  // The sweep, before the stream's own deadlines: a wait of the stream's
  // own (an ack held for a topic's place) that has lasted too long.
  virtual void sweep_waits(io::Loop::Clock::time_point now) { (void)now; }
  // Past the send budget (fifo, or an application frame): a 1008 close
  // saying why, after what is queued; the client resumes from its last id.
  virtual void cut_off();

  // Queues a close frame (once) and closes after the flush.
  void end(proto::ws::CloseCode code, std::string_view reason, conn::CloseReason why);
  // The hub refused the stream's topic or publish: 1013 (try again later)
  // for a refusal that passes (503: the topic table or a topic's
  // subscribers are full), 1008 for one that the same request always gets.
  void end_refused(hub::HubStatus status);
  // The credentials the stream rests on expired unrefreshed: 4401 "401
  // token expired".
  void expire();
  // Before each message a client publishes: with ws.client_publish off (a
  // reload may switch it off under an open stream) a 1008 close saying so,
  // and true; the message is not published.
  [[nodiscard]] bool end_if_publishing_off();
  // Queues a close frame once; later calls do nothing.
  void send_close(proto::ws::CloseCode code, std::string_view reason);
  // One text message in `lane`; dropped quietly when the pool or lane is full.
  void send_text(std::string_view text, buf::Lane lane);
  // Over HTTP/2, refuses a stream whose response has not gone: `response`
  // says 503 (retry later) and the body `reason`, and no WebSocket frame
  // goes (those queued meanwhile, a ping or the application's, are
  // dropped: the client never had the stream). Nothing may be queued after.
  void refuse_unanswered(HeldResponse& response, std::string_view reason, conn::CloseReason why);
  // A notice as one text message: `opening` (say {"op":" ), the kind, then
  // the fields of a JSON object.
  bool append_json_notice(buf::FrameBuilder& out, std::string_view opening, std::string_view kind,
                          std::string_view json_fields);
  // A message the stream must keep could not be charged to the
  // connection's memory account: 1009 naming the limit (1011 when the
  // server is out of memory).
  void refuse_for_memory(buf::Growth growth);
  // What a message kept past its decoding is charged to; null: nothing.
  [[nodiscard]] buf::MemoryAccount* memory() const { return memory_; }
  // What such a message's buffer may hold at rest uncharged: its resting
  // size when the stream is the whole connection, nothing on an HTTP/2
  // stream (see resting_uncharged() in ws_stream.cpp).
  [[nodiscard]] std::size_t memory_uncharged() const { return whole_connection_ ? buf::kRestingCapacity : 0; }
  // permessage-deflate was negotiated.
  [[nodiscard]] bool deflate() const { return deflate_; }

  [[nodiscard]] conn::Outlet& outlet() { return outlet_; }
  [[nodiscard]] const conn::Outlet& outlet() const { return outlet_; }
  [[nodiscard]] LoopServices& services() { return services_; }
  [[nodiscard]] Peer& peer() { return peer_; }

 private:
  void on_ping(std::span<const char> payload);
  // Hands a message to on_message() in the stream's asking round, keeping it
  // if a check waits.
  void handle_message(proto::ws::Opcode opcode, std::span<const char> payload);
  void auth_answered() override;
  // No more input is decoded: the stream's own hold, or a decision awaited.
  [[nodiscard]] bool waiting() const { return input_held() || (round_ && round_->pending()); }

  conn::Outlet& outlet_;
  LoopServices& services_;
  Peer& peer_;
  buf::MemoryAccount* const memory_;
  std::unique_ptr<AuthRound> round_;  // made at the first message
  proto::ws::Decoder decoder_;
  io::Loop::Clock::time_point last_ping_;
  io::Loop::Clock::time_point held_since_;
  io::Loop::Clock::time_point message_since_;
  std::string notice_scratch_;
  buf::ChargedBuffer waiting_message_;  // the message whose check waits
  // The flags last, side by side: each beside the word it belongs to cost
  // a connection 32 bytes of padding.
  proto::ws::Opcode waiting_opcode_ = proto::ws::Opcode::text;  // of waiting_message_
  bool deflate_ = false;
  const bool whole_connection_;
  bool awaiting_pong_ = false;
  bool held_ = false;         // input_held() at the last tick, since held_since_
  bool mid_message_ = false;  // the decoder holds part of a message, since message_since_
  bool fed_ = false;          // input came since the last tick
  bool close_sent_ = false;
};

}  // namespace sluice::session
