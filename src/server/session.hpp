// Owns: Session, one client connection from its first byte to its close.
// It speaks HTTP/1.1 (keep-alive, pipelined) until a request turns it into a
// stream: an SSE stream (GET /sse), a WebSocket carrying one topic's events
// as messages (GET /ws/{topic}), the /ws JSON protocol (GET /ws), a
// WebSocket whose every message is published (GET /pub/{topic}), or the
// test-only echo (GET /ws-echo). The code is split by concern:
//   http_session.cpp   requests, replies, timeouts
//   subscriptions.cpp  topics, replay, slow-consumer policies, notices
//   ws_session.cpp     the upgrade, frames, the /ws protocol, liveness
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "conn/connection.hpp"
#include "conn/policy.hpp"
#include "hub/hub.hpp"
#include "proto/http1.hpp"
#include "proto/ws_close.hpp"
#include "proto/ws_encoder.hpp"
#include "server/response.hpp"

namespace sluice::server {

class Worker;
struct WsState;

class Session final : public conn::Connection, public hub::Subscriber {
 public:
  enum class State : std::uint8_t { request, sse, ws_topic, ws_json, ws_echo, ws_publish };

  Session(Worker& worker, int fd);
  ~Session() override;

  // The worker's sweep: handshake, idle and linger timeouts, and WebSocket
  // pings and pong deadlines.
  void check_timeouts(io::Loop::Clock::time_point now);
  // Server shutdown: a WebSocket gets a 1001 close frame; then every kind
  // of session flushes and closes.
  void begin_shutdown();

  // A whole frame another thread encoded for this connection (ConnectionRef).
  void send_posted(buf::FrameRef frame);
  // The worker's retry of a message the hub could not take (hold_publisher).
  void retry_held_message();

  [[nodiscard]] State state() const { return state_; }
  [[nodiscard]] bool websocket() const { return state_ >= State::ws_topic; }
  std::size_t index = 0;  // position in the worker's session list
  std::uint64_t id = 0;   // the worker's name for it, in ConnectionRefs

 private:
  enum class JoinStatus : std::uint8_t { ok, bad_topic, too_many, unavailable };

  // http_session.cpp
  void on_input(std::string& input) override;
  void on_closed(conn::CloseReason reason) override;
  void on_drained() override;
  bool replies_full() const;
  bool handle_one(std::string_view input, std::size_t& used);
  void handle_request(const proto::http1::Request& request);
  void respond(Response response);
  bool queue_response(const Response& response);
  void fail(int status);
  void method_not_allowed(std::string_view allow);
  void publish(const proto::http1::Request& request, std::string_view raw_topic);
  void upgrade_publisher(const proto::http1::Request& request, std::string_view raw_topic);
  void start_sse(const proto::http1::Request& request, std::string_view path_topic);
  void refuse_stream(std::string_view why);
  std::string_view cors_origin(const proto::http1::Request& request) const;

  // subscriptions.cpp
  JoinStatus join(std::string_view topic, std::optional<conn::Policy> requested, std::string_view last_id);
  bool leave(std::string_view topic);
  void leave_all();
  void deliver(const hub::Delivery& delivery) override;
  void lost(std::uint32_t cookie, std::uint64_t first, std::uint64_t last) override;
  const buf::FrameRef& wire_form(hub::EventFrames& frames) const;
  int wire_form_index() const;
  void cut_off();
  void before_flush() override;
  bool queue_drop_notices();
  void send_reset_notice(std::uint32_t cookie, const char* reason, std::string_view last_id);
  bool append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields);

  // ws_session.cpp
  void upgrade(const proto::http1::Request& request, State target, std::string_view topic);
  void on_ws_input(std::string& input);
  void on_ws_message(proto::ws::Opcode opcode, std::span<const char> payload);
  void on_ws_json(std::string_view text);
  void publish_or_hold(std::string_view data);
  hub::PublishResult publish_or_wait(std::string_view data);
  void refuse_publish(hub::HubStatus status);
  void ws_send(std::string_view text, buf::Lane lane);
  void ws_ack(std::string_view req, bool ok, std::string_view detail);
  void ws_close(proto::ws::CloseCode code, std::string_view reason);
  void check_liveness(io::Loop::Clock::time_point now);

  Worker& worker_;
  proto::http1::RequestParser parser_;
  State state_ = State::request;
  bool keep_alive_ = true;
  bool served_any_ = false;  // until the first request, the handshake timeout applies
  bool partial_ = false;     // part of a request is buffered
  io::Loop::Clock::time_point request_started_;

  // One slot per topic this stream follows; a slot's index is the cookie
  // the hub hands back and the FrameTag::topic of its queued events. A slot
  // left over /ws is emptied and reused, so cookies stay stable.
  std::vector<std::string> topics_;
  std::vector<conn::Policy> policies_;
  std::vector<conn::DropRecord> drops_;
  bool drops_pending_ = false;
  std::string notice_scratch_;

  std::unique_ptr<WsState> ws_;
};

}  // namespace sluice::server
