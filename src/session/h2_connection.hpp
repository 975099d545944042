// Owns: H2Connection, a connection that speaks HTTP/2 (TLS with ALPN h2, or
// h2c by prior knowledge): the engine (transport::H2Session) fed with the
// connection's bytes and flushed through its transport, and the exchanges
// on its streams. Each GET /sse stream is an SseStream writing to an outlet
// of its own (H2StreamOutlet), so it has the same semantics as over
// HTTP/1.1 (authorizer, Origin, replay, its policy on its own queue) and a
// stream whose window is shut holds only itself. A WebSocket opened by
// extended CONNECT (/ws, /ws/{topic}, /pub/{topic}, the application's
// routes) is the same stream type as over HTTP/1.1 on such an outlet,
// with a Peer of its own (h2_websocket.cpp). POST /pub/{topic} is checked when its headers
// arrive and published when its body is whole, its body gathered in pool
// blocks (H2Body) and its state in one of the connection's fixed set of
// exchanges (H2Exchanges): a steady run of publishes on one connection
// allocates nothing. What each path does is in h2_routes.cpp; on a node
// with a broker the publish goes through Redis and its stream waits for
// the answer (h2_broker_publish.cpp).
//
// A request whose authorization is decided later (an authorizer that
// answers later: the HTTP authorization callback) waits on its own stream
// (H2Waiting): its exchange is opened, its response and its DATA held,
// and it is routed again from the start when the decision comes, while
// the connection's other streams are served. A stream or connection that
// closes first withdraws the question; auth.callback_timeout_ms bounds it.
//
// Bounds: the engine's (h2.*: streams, header list, windows, flood meter,
// its memory, charged with its streams to the connection's memory account:
// limits.connection_bytes, limits.server_bytes); each stream's send budget
// (send.*); a POST body joined from its blocks, charged to the account too
// and given back after its publish; request bodies held
// across the connection's streams at most receive.budget_bytes (a POST
// past it, or one the pool has no block for, is answered 503), each at
// most http.max_body (413, from the engine); at most
// h2.max_concurrent_streams exchanges (one more is refused with
// RST_STREAM(REFUSED_STREAM)); a WebSocket stream's input not yet decoded
// at most its window (h2.stream_window); a stream that should end but
// whose window stays shut is reset at timeouts.linger_ms; a connection
// with no open stream for timeouts.idle_ms is sent GOAWAY and closed.
//
// A `latest` stream is bounded in age as over HTTP/1.1: its outlet's
// latency gate plans each flush of the connection (before_flush()), the
// engine lets the stream's DATA start only as far as the gate allows, and
// the gate learns what went (write_queued()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "delivery/policy.hpp"
#include "proto/http1.hpp"
#include "proto/ws_handshake.hpp"
#include "session/broker_publishes.hpp"
#include "session/h2_exchanges.hpp"
#include "session/h2_held_response.hpp"
#include "session/h2_stream_backlog.hpp"
#include "session/h2_stream_outlet.hpp"
#include "session/h2_waiting.hpp"
#include "session/phase.hpp"
#include "session/response.hpp"
#include "transport/h2_session.hpp"

namespace sluice::session {

class LoopServices;
class Session;
class SseStream;
class WsStream;

class H2Connection final : public Phase,
                           public transport::H2Handler,
                           public H2StreamCarrier,
                           public H2WaitOwner,
                           public H2ResponseListener,
                           private PublishWaiter {
 public:
  explicit H2Connection(Session& session);
  ~H2Connection() override;

  void on_input(std::string& input) override;
  // The client shut its sending side (a FIN, or TLS close_notify): the
  // requests it sent that wait for their answer (a publish for Redis, a
  // request for its authorization decision) are answered first, then the
  // connection closes. Streams (SSE, WebSocket) end with the connection.
  bool on_peer_eof() override;
  void tick(io::Loop::Clock::time_point now) override;
  std::size_t shed_behind(std::uint32_t looks) override;
  void shutdown() override;
  void on_closed() override;
  bool on_posted(std::int32_t stream, buf::FrameRef& frame) override;
  [[nodiscard]] View view() const override { return {"h2", {}}; }
  void each_view(const std::function<void(const View&)>& visit) const override;
  void before_flush() override;
  void on_drained() override;
  void on_flushed() override;
  conn::FlushResult write_queued(conn::Writer& writer, conn::OutQueue& queue, conn::DataAllowance allowance) override;

 private:
  // transport::H2Handler (the engine's events), H2StreamCarrier (the
  // streams' outlets), H2WaitOwner (a waiting stream's decision) and
  // H2ResponseListener (a stream's held HEADERS): public bases, so that the
  // engine, the outlets, the waiting streams and the responses can be
  // handed this connection, but called only by them.
  void on_request(const transport::H2Request& request) override;
  void on_data(std::int32_t stream, std::string_view bytes) override;
  void on_end(std::int32_t stream) override;
  void on_close(std::int32_t stream, std::uint32_t error_code) override;
  void on_body_too_large(std::int32_t stream, std::size_t max_body) override;
  void on_headers_too_large(std::int32_t stream, bool fields, std::size_t limit) override;
  // H2StreamCarrier
  void stream_output(std::int32_t stream) override;
  void end_stream(std::int32_t stream) override;
  void reset_stream(std::int32_t stream, std::uint32_t error_code) override;
  void resume_input(std::int32_t stream) override;
  std::unique_ptr<conn::BacklogSource> watch_stream(std::int32_t stream, std::size_t padding_per_second) override;
  std::uint64_t ask_reader() override;
  conn::AnswerInbox& answer_inbox() override;
  // H2WaitOwner
  void authorization_answered(std::int32_t stream) override;
  // H2ResponseListener
  void stream_answered(std::int32_t stream, int status) override;

  // h2_routes.cpp
  // Routes a request (in the asking round the caller opened) and logs it.
  void serve(const transport::H2Request& request);
  void route(std::int32_t stream, const proto::http1::Request& request, std::string_view protocol, bool end_stream);
  // The access log's line for a request on `stream` (log.access), naming
  // `connection`; the target is redacted by the logger, the body never
  // passed, only its length.
  void log_request(std::int32_t stream, std::uint64_t connection, std::string_view method, std::string_view target,
                   std::string_view user_agent, int status, std::string_view transport, std::size_t body_bytes);
  // The line of a request whose answer was held (a stream's HEADERS, a
  // POST's reply), from the fields its exchange kept.
  void log_held(H2Exchange& exchange, int status, std::string_view transport, std::size_t body_bytes);
  void open_sse(std::int32_t stream, const proto::http1::Request& request, std::string_view path_topic);
  // An SSE response on `stream` following `topics`, allowed already.
  void start_sse(std::int32_t stream, const proto::http1::Request& request, std::span<const std::string> topics,
                 std::optional<Policy> requested, std::string_view last_id);
  void begin_post(std::int32_t stream, const proto::http1::Request& request, std::string_view raw_topic,
                  bool end_stream);
  void finish_post(H2Exchange& exchange);
  // Adds `bytes` to the exchange's body: short of a block even after kept
  // history gave way, or past the bodies' share, says which.
  [[nodiscard]] BodyGrowth take_body(H2Exchange& exchange, std::string_view bytes);
  // The POST's body is given up: its blocks go back, nothing more is kept.
  void drop_body(H2Exchange& exchange);
  // drop_body(), then `refusal` answers the POST and its client is told to
  // send no more of the body.
  void refuse_post(H2Exchange& exchange, const Response& refusal);
  // Logs and answers a POST whose publish is done or refused.
  void answer_post(H2Exchange& post, const Response& answer);
  // h2_broker_publish.cpp: a whole POST body sent to the broker, and
  // Redis's answer (PublishWaiter).
  void publish_to_broker(BrokerPublishes& publishes, H2Exchange& post, std::string_view body);
  void published(std::uint32_t ticket, broker::PublishStatus status, broker::StreamId id,
                 std::string_view error) override;
  // h2_websocket.cpp: an extended CONNECT (`protocol` its :protocol), and
  // the bytes of an open WebSocket stream.
  void open_websocket(std::int32_t stream, const proto::http1::Request& request, std::string_view protocol,
                      bool end_stream);
  // The route's checks, then the stream it opens (null: answered with a
  // status instead).
  WsStream* route_websocket(std::int32_t stream, const proto::http1::Request& request,
                            const proto::ws::HandshakeResult& handshake);
  // Makes the stream `make` builds, with a Peer of its own, and answers
  // 200, unless `stream_answers`: then the stream sends its HEADERS itself
  // (a /ws/{topic} stream, whose 200 waits for its topic's place). The
  // application hears of it (on_open) before it sends a thing.
  template <typename MakeStream>
  WsStream* accept_websocket(std::int32_t stream, const proto::http1::Request& request,
                             const proto::ws::HandshakeResult& handshake, MakeStream make,
                             bool stream_answers = false);
  void feed_websocket(H2Exchange& exchange, std::string_view bytes);
  // The client ended a WebSocket's stream: it closes once it owes nothing
  // for what came before (WsStream::on_peer_eof()), asked again as its
  // input resumes.
  void end_websocket_input(H2Exchange& exchange);
  [[nodiscard]] H2Exchange* open_exchange(std::int32_t stream);
  // h2_auth_waits.cpp: the request just routed waits for its
  // authorization on its stream; and what its stream received meanwhile
  // goes where the decision sent the stream.
  void wait_for_authorization(const transport::H2Request& request);
  void deliver_held(H2Exchange& exchange);
  // Answers `stream` with `response` (its body as DATA) and ends it.
  void reply(std::int32_t stream, const Response& response);

  void after_engine(transport::H2Status status);
  // A request waits for its answer (see on_peer_eof()).
  [[nodiscard]] bool owes_answers();
  // Once the client's input ended, closes when nothing is owed.
  void end_if_owed_nothing();
  void let_go(H2Exchange& exchange);

  Session& session_;
  LoopServices& services_;
  std::unique_ptr<transport::H2Session> h2_;
  // The reader's backlog on this connection's socket, made when a stream
  // is first gated; it outlives the exchanges, whose gates read it.
  std::unique_ptr<H2SocketBacklog> socket_backlog_;
  std::uint64_t pings_told_ = 0;  // the last PING answer the streams were told of
  // The asking round each new request is routed in (with an authorizer);
  // handed to the request's exchange when its authorization waits.
  std::unique_ptr<H2Waiting> routing_;
  // Closed exchanges are reused once no engine call is under way.
  H2Exchanges exchanges_;
  buf::ChargedBuffer joined_;  // a POST body longer than one pool block, made one run of bytes (charged)
  std::vector<proto::http1::Header> fields_;  // the request being routed, as HTTP/1.1 reads it
  std::size_t body_bytes_ = 0;                // pool bytes POST bodies hold across the streams
  io::Loop::Clock::time_point quiet_since_;   // the last time a stream was open
  int answered_status_ = 0;                   // the status of the reply to the request being routed
  bool routing_head_ = false;                 // that request is a HEAD: its reply has no DATA
  bool served_any_ = false;                   // a request has arrived
  bool ending_ = false;                       // the engine is ending the session (GOAWAY)
  bool input_ended_ = false;                  // the client shut its sending side (on_peer_eof())
};

}  // namespace sluice::session
