// Owns: WsJsonStream, a WebSocket on GET /ws speaking sluice's JSON
// protocol (docs/WEBSOCKET.md): the client subscribes (with `since` to
// resume), unsubscribes, publishes and refreshes its token with one JSON
// object per text message, each answered by an ack; events arrive as
// {"op":"event",...} envelopes and notices as {"op":KIND,...}.
//
// A refresh replaces the connection's credentials (Peer::refresh): one the
// authorizer refuses closes the connection with its code and reason, after
// the failed ack; one it allows moves the expiry, and each topic followed
// is asked again, so grants a new token narrows end at once (a `revoked`
// notice per topic) instead of lasting for the connection's life.
//
// Requests are read and acks written by the bounded codec in proto/
// (ws_json.hpp): one pass, no recursion, a fixed amount of stack whatever
// the client nests, and an ack echoes `req` only as the short scalar the
// client wrote. Every request is answered: an ack is queued before the
// next request is read, and a client that leaves ws.json_max_replies acks
// unread is no longer read (its TCP window fills, backpressure) until they
// leave; one that stays that way past ws.pong_timeout_ms is closed.
#pragma once

#include <string>
#include <string_view>

#include "proto/ws_json.hpp"
#include "proto/ws_json_writer.hpp"
#include "session/broker_publishes.hpp"
#include "session/subscriptions.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

class WsJsonStream final : public WsStream, private Subscriptions::Owner, private PublishWaiter {
 public:
  explicit WsJsonStream(const WsSetup& setup);
  ~WsJsonStream() override;

  void before_flush() override { subscriptions_.before_flush(); }
  [[nodiscard]] View view() const override { return {"ws", subscriptions_.topics()}; }
  void on_drained() override;
  void on_flushed() override { subscriptions_.on_flushed(); }

 private:
  void on_message(proto::ws::Opcode opcode, std::span<const char> payload) override;
  // With a broker, one publish at a time waits for Redis's answer (its ack
  // carries the id) and no request is read meanwhile: acks stay in order.
  // A subscribe whose ack waits for the topic's place holds the input the same way.
  [[nodiscard]] bool input_held() const override {
    return awaiting_publish_ || awaiting_subscribe_ || replies_unread();
  }
  [[nodiscard]] bool held_by_peer() const override { return replies_unread(); }
  [[nodiscard]] bool replies_unread() const { return outlet().queue().control_frames() >= max_replies_; }
  void on_close_sent() override { subscriptions_.stop(); }
  void let_go() override { subscriptions_.leave_all(); }
  void cut_off() override;
  bool append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) override;
  void placed(std::uint32_t cookie, std::uint64_t epoch, std::uint64_t newest) override;
  // A subscribe whose ack waited for the topic's place past
  // broker.placement_timeout_ms (Redis unreachable) is refused, the topic
  // left, and the requests behind it read on.
  void sweep_waits(io::Loop::Clock::time_point now) override;

  // Answers a request as read: an error ack, or what the request asks.
  void reply(const proto::wsjson::ReadResult& read, const proto::wsjson::Request& request);
  // Answers one request; its ack is queued.
  void answer(const proto::wsjson::Request& request);
  void subscribe(const proto::wsjson::Request& request);
  void publish(const proto::wsjson::Request& request);
  void refresh(const proto::wsjson::Request& request);
  // Leaves every topic the refreshed credentials no longer grant, and
  // tells the client which and why.
  void revoke_ungranted();
  void published(std::uint32_t ticket, broker::PublishStatus status, broker::StreamId id,
                 std::string_view error) override;
  // Queues `ack` in the control lane; a connection whose ack cannot be
  // queued is closed (1011) rather than left without its answer.
  void send_ack(const proto::wsjson::Ack& ack);
  void refuse(const proto::wsjson::Req& req, std::string_view error) { send_ack({req, false, {}, {}, error}); }

  Subscriptions subscriptions_;
  proto::wsjson::Limits limits_;
  std::size_t max_replies_;
  bool paused_ = false;  // input_held() stopped the input: a drain resumes it
  bool awaiting_publish_ = false;
  std::uint32_t publish_ticket_ = 0;
  proto::wsjson::Req publish_req_;  // the waiting publish's req, for its ack
  bool awaiting_subscribe_ = false;
  proto::wsjson::Req subscribe_req_;  // the subscribe whose ack waits for placed()
  std::string subscribe_topic_;       // its topic
  io::Loop::Clock::time_point subscribe_since_{};
};

}  // namespace sluice::session
