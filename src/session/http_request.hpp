// Owns: HttpRequestPhase, a connection reading HTTP/1.1 requests
// (keep-alive, pipelined) and answering them, until a request opens a
// stream and the connection becomes that stream. Parsing, the replies and
// the request timeouts are here (http_request.cpp); what each path does is
// in http_routes.cpp.
//
// A request whose check waits for a decision given later (Peer) is left in
// the input buffer, parsed but not consumed: nothing is answered or read
// behind it (pipelined requests wait, within the receive budget) until the
// decision comes; then the request is parsed and routed again from the
// start, its checks given their recorded answers.
#pragma once

#include <string>
#include <string_view>

#include "hub/hub_types.hpp"
#include "proto/http1.hpp"
#include "session/auth_gate.hpp"
#include "session/broker_publishes.hpp"
#include "session/held_access_line.hpp"
#include "session/origin_check.hpp"
#include "session/peer.hpp"
#include "session/phase.hpp"
#include "session/response.hpp"
#include "transport/h2_preface.hpp"

namespace sluice::session {

class AdminDesk;
class LoopServices;
class Session;
class WsStream;

class HttpRequestPhase final : public Phase, private PublishWaiter, private AuthWaiter {
 public:
  explicit HttpRequestPhase(Session& session);
  ~HttpRequestPhase() override;

  void on_input(std::string& input) override;
  void on_drained() override;
  // A client's FIN ends its requests, not its reading: every request read
  // before it is answered (the pipelined ones waiting for room for their
  // replies, a publish waiting for Redis, a request for its decision), then
  // the connection closes. A request for a stream still waiting for its
  // decision ends there, as its stream would: the question is withdrawn.
  bool on_peer_eof() override;
  void on_input_refused(buf::ChargeStatus status) override;
  void tick(io::Loop::Clock::time_point now) override;

 private:
  // http_request.cpp
  void auth_answered() override;
  [[nodiscard]] transport::PrefaceMatch h2_preface(std::string_view input) const;
  bool replies_full() const;
  bool handle_one(std::string_view input, std::size_t& used);
  void respond(Response response);
  bool queue_response(const Response& response);
  // The interim answer to Expect: 100-continue (see
  // proto::http1::RequestParser::take_continue()).
  void send_continue();
  // `reason`, when given, follows the status line's text in the body.
  void fail(int status, std::string_view reason = {});
  // A clear-text client opened with the HTTP/2 preface while h2.enabled=0.
  void refuse_h2c();
  // The request could not be held: 413 naming limits.connection_bytes,
  // or 503 naming limits.server_bytes.
  void fail_for_memory(buf::ChargeStatus status);
  // The hub's refusal, as an HTTP reply that keeps the connection.
  void refuse(hub::HubStatus status);
  void method_not_allowed(std::string_view allow);
  // The authorizer's refusal: its status and reason, and the connection
  // closes (a client refused once gets no second try on it).
  void deny(const AuthOutcome& outcome);
  // The access log's line for the request just answered (log.access).
  void log_access(std::string_view method, std::string_view target, std::string_view user_agent,
                  std::size_t body_bytes);

  // http_routes.cpp
  void route(const proto::http1::Request& request);
  // An SSE stream or a WebSocket: what the client's FIN ends, before it
  // opened as after (see on_peer_eof()).
  [[nodiscard]] bool asks_for_stream(const proto::http1::Request& request) const;
  // An upgrade to a WebSocket on a path that opens one.
  [[nodiscard]] bool asks_for_websocket(const proto::http1::Request& request) const;
  void publish(const proto::http1::Request& request, std::string_view raw_topic);
  // broker_publish.cpp: with a broker the request waits for Redis's answer
  // and reads no further request meanwhile (replies stay in order).
  void publish_to_broker(BrokerPublishes& publishes, const proto::http1::Request& request, std::string_view topic,
                         const hub::Message& message);
  void published(std::uint32_t ticket, broker::PublishStatus status, broker::StreamId id,
                 std::string_view error) override;
  void start_sse(const proto::http1::Request& request, std::string_view path_topic);
  void upgrade_topic(const proto::http1::Request& request, std::string_view raw_topic);
  void hand_line_to_stream(HeldAccessLine& line, const proto::http1::Request& request, std::string_view transport);
  void upgrade_publisher(const proto::http1::Request& request, std::string_view raw_topic);
  // `verdict` is the authorizer's answer for what the stream will do: a
  // refused stream is opened and closed at once, saying why.
  template <typename MakeStream>
  WsStream* upgrade(const proto::http1::Request& request, MakeStream make,
                    const AuthOutcome& verdict = AuthOutcome::allow());
  OriginRule origin_rule() const;
  std::string_view cors_origin(const proto::http1::Request& request) const;

  // ops_routes.cpp: GET /metrics, GET /dashboard and its events; false when `request`
  // is for neither.
  bool route_ops(const proto::http1::Request& request);
  void follow_system_topic(const proto::http1::Request& request);
  // admin_routes.cpp: every request that came in on the admin listener.
  void route_admin(const proto::http1::Request& request);
  void admin_topics(const proto::http1::Request& request, const AdminDesk& desk);
  void admin_topic(std::string_view raw_topic, const AdminDesk& desk);
  void admin_connections(const proto::http1::Request& request, AdminDesk& desk);
  // The listing's page when every loop has answered, or a 503 past the wait.
  void finish_listing(io::Loop::Clock::time_point now);

  Session& session_;
  LoopServices& services_;
  proto::http1::RequestParser parser_;
  bool keep_alive_ = true;
  bool served_any_ = false;  // until the first request, the handshake timeout applies
  bool partial_ = false;     // part of a request is buffered
  bool stopped_for_reply_room_ = false;  // requests wait for room for their replies (replies_full())
  bool handed_over_ = false;  // a request opened a stream: this phase is done
  io::Loop::Clock::time_point request_started_;
  int answered_status_ = 0;  // the status of this request's reply, once sent
  bool answering_head_ = false;  // this request is a HEAD: its reply has no body
  bool stream_logs_request_ = false;  // the stream it opened holds its answer, and writes its line
  // A publish waiting for the broker's answer: its ticket, the topic and
  // the CORS origin its reply names (kept, reused: the request is gone).
  bool awaiting_publish_ = false;
  bool awaiting_auth_ = false;  // the request at the front waits for a decision given later
  bool awaiting_stream_ = false;  // ... and asks for a stream
  std::uint32_t publish_ticket_ = 0;
  std::string publish_topic_;
  std::string publish_origin_;
  // The access log line (log.access) of the request whose answer waits:
  // for Redis's (written with it), or for an authorization decision
  // (dropped when it comes: the request is routed, and logged, again).
  HeldAccessLine held_line_;
  // A connection listing being made by the loops (admin API): its ticket,
  // 0 when none, and since when it is awaited.
  std::uint64_t listing_ticket_ = 0;
  io::Loop::Clock::time_point listing_since_;
};

}  // namespace sluice::session
