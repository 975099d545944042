// WebSocket over HTTP/2 (extended CONNECT): a stream opened with :method
// CONNECT and :protocol websocket is answered 200 and from then on its
// DATA, both ways, carries WebSocket frames. Every WebSocket route of
// HTTP/1.1 is served, by the same stream types: /ws (the JSON protocol,
// WsJsonStream), /ws/{topic} (WsTopicStream), /pub/{topic} (a publisher,
// WsPublisherStream) and the application's own routes, each writing to
// the stream's outlet, its frames decoded by the same codec (masked client
// frames, limits, close handshake, pings). The engine announces
// SETTINGS_ENABLE_CONNECT_PROTOCOL so that clients know they may.
//
// With a broker, a /ws/{topic} stream whose client has no id is answered
// once the node's reader has placed its topic, as its 101 would be over
// HTTP/1.1: its 200 waits (WsTopicStream), and past
// broker.placement_timeout_ms it is 503 with Retry-After instead, the
// reason as its body.
//
// To the application each such stream is a connection of its own: a Peer
// with its own ConnectionRef (frames posted to it reach this stream), its
// own on_open and on_close, the request that opened it kept for its later
// checks (each /ws subscribe and publish, a topic stream's first publish,
// a refresh), and credentials that start as its connection's request's and
// move with its own refreshes. Topics it creates count against its
// connection's allowance. The checks at the opening (subscribe to
// /ws/{topic}, publish to /pub/{topic}) are made in the stream's routing
// round, so an authorizer that answers later holds only this stream; a
// refusal there is the HTTP status an HTTP/2 client can read.
//
// Bounds, as over HTTP/1.1: a message being joined and one kept while its
// check or its publish waits are charged to the connection's memory
// account (past it: 1009 naming the limit), each at most ws.max_message
// (1009), a /ws client's unread acks at most ws.json_max_replies. The
// stream's copy of its request is charged to the account too; a stream it
// has no room for is refused (RST_STREAM(REFUSED_STREAM)).
//
// Flow control is backpressure both ways: what the stream sends waits in
// its queue behind a shut window, where its policy acts on it; what the
// client sends is given back to its window only as the stream decodes it,
// so a stream that holds its input (a message waiting to be published)
// stops the client at one window's worth.
#include <nghttp2/nghttp2.h>

#include "buf/fixed_sink.hpp"
#include "hub/hub.hpp"
#include "proto/topic_name.hpp"
#include "proto/ws_handshake.hpp"
#include "session/h2_connection.hpp"
#include "session/h2_ws_response.hpp"
#include "session/kept_request.hpp"
#include "session/request_target.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/shared_routes.hpp"
#include "session/ws_json_stream.hpp"
#include "session/ws_publisher_stream.hpp"
#include "session/ws_topic_stream.hpp"

namespace sluice::session {

namespace {

constexpr std::string_view kWsPath = "/ws";
constexpr std::string_view kWsTopicPrefix = "/ws/";

}  // namespace

void H2Connection::open_websocket(std::int32_t stream, const proto::http1::Request& request,
                                  std::string_view protocol, bool end_stream) {
  if (protocol.empty()) {
    return reply(stream, {.status = 405,
                          .body = "CONNECT is served only as a WebSocket (:protocol websocket)\n",
                          .extra_headers = "Allow: GET, POST\r\n"});
  }
  const proto::ws::HandshakeOptions options{services_.subprotocols(), {}, services_.config().ws.deflate != 0};
  const proto::ws::HandshakeResult result = proto::ws::check_extended_connect(
      {request.method_text, protocol, request.header("sec-websocket-version"), request.list("sec-websocket-protocol"),
       request.list("sec-websocket-extensions"), request.header("origin"),
       request.header_count("sec-websocket-version")},
      options);
  if (result.http_status == 426) {
    return reply(stream, {.status = 426,
                          .body = "WebSocket version 13 only\n",
                          .extra_headers = "Sec-WebSocket-Version: 13\r\n"});
  }
  if (result.http_status != 200) return reply(stream, {.status = result.http_status, .body = result.reason});
  if (route_websocket(stream, request, result) == nullptr) return;
  if (end_stream) on_end(stream);
  session_.want_flush();
}

// The routes in HTTP/1.1's order (http_routes.cpp), with its checks.
WsStream* H2Connection::route_websocket(std::int32_t stream, const proto::http1::Request& request,
                                        const proto::ws::HandshakeResult& handshake) {
  const std::string_view path = request.path;
  ReplyText text;
  if (path.starts_with(kPublishPrefix)) {
    if (services_.config().ws.client_publish == 0) {
      reply(stream, {.status = 403, .body = "publishing over WebSocket is switched off (ws.client_publish)\n"});
      return nullptr;
    }
    const std::string_view topic =
        decode_into(path.substr(kPublishPrefix.size()), text.topic, sizeof text.topic);
    if (!proto::valid_topic_name(topic, services_.hub().limits().max_topic_name)) {
      reply(stream, hub_refusal(services_.answer(hub::HubStatus::bad_topic), text));
      return nullptr;
    }
    if (const AuthOutcome verdict = session_.peer().authorize(server::Action::publish, topic, request);
        !verdict.allowed()) {
      reply(stream, denial(verdict, text));
      return nullptr;
    }
    return accept_websocket(stream, request, handshake, [topic = std::string(topic)](const WsSetup& setup) {
      return std::make_unique<WsPublisherStream>(setup, topic);
    });
  }
  if (const WsRoute* registered = services_.ws_route(path)) {
    return accept_websocket(stream, request, handshake, registered->make);
  }
  if (path == kWsPath) {
    return accept_websocket(stream, request, handshake,
                            [](const WsSetup& setup) { return std::make_unique<WsJsonStream>(setup); });
  }
  if (!path.starts_with(kWsTopicPrefix)) {
    reply(stream, {.status = 404, .body = "no such resource\n"});
    return nullptr;
  }
  if (auto refusal = check_one_last_id(request)) {
    reply(stream, *refusal);
    return nullptr;
  }
  std::optional<Policy> policy;
  if (auto refusal = check_policy(services_.config().policy, request, text, policy)) {
    reply(stream, *refusal);
    return nullptr;
  }
  const std::string_view topic = decode_into(path.substr(kWsTopicPrefix.size()), text.topic, sizeof text.topic);
  if (!proto::valid_topic_name(topic, services_.hub().limits().max_topic_name)) {
    reply(stream, hub_refusal(services_.answer(hub::HubStatus::bad_topic), text));
    return nullptr;
  }
  if (const AuthOutcome verdict = session_.peer().authorize(server::Action::subscribe, topic, request);
      !verdict.allowed()) {
    reply(stream, denial(verdict, text));
    return nullptr;
  }
  WsTopicStream* opened = nullptr;
  WsStream* made = accept_websocket(
      stream, request, handshake,
      [&](const WsSetup& setup) {
        auto topic_stream = std::make_unique<WsTopicStream>(setup, std::string(topic));
        if (origin_reads_only(services_, request)) topic_stream->read_only();
        opened = topic_stream.get();
        return topic_stream;
      },
      true);
  if (made == nullptr || made->close_sent()) return made;
  opened->open(requested_last_id(request, text), policy);  // into text.last_id, beside the topic
  return made;
}

template <typename MakeStream>
WsStream* H2Connection::accept_websocket(std::int32_t stream, const proto::http1::Request& request,
                                         const proto::ws::HandshakeResult& handshake, MakeStream make,
                                         bool stream_answers) {
  conn::OutQueue* queue = h2_->queue(stream);
  if (queue == nullptr) return nullptr;
  // Each stream keeps a copy of its request for its later checks (when an
  // authorizer is installed): up to h2.max_concurrent_streams copies on
  // one connection, so each is charged to the connection's account, and a
  // stream it cannot hold is refused before it opens, as a stream past the
  // account's room is at admission: before its exchange and its Peer (a
  // ConnectionState and an id) are made, so a refusal costs nothing.
  KeptRequest kept;
  if (services_.auth_gate().installed() && kept.keep(request, &session_.memory()) != buf::ChargeStatus::ok) {
    answered_status_ = 503;
    reset_stream(stream, NGHTTP2_REFUSED_STREAM);
    return nullptr;
  }
  H2Exchange* exchange = open_exchange(stream);
  if (exchange == nullptr) return nullptr;
  Peer& connection = session_.peer();
  FramePoster& poster = services_.poster();
  exchange->peer = std::make_unique<Peer>(
      services_, std::make_shared<ConnectionState>(poster, services_.pool(), poster.new_id(), session_.id(), stream),
      connection.address(), &connection.topic_allowance());
  exchange->peer->keep_request(std::move(kept));
  char extensions[128];
  buf::FixedSink extensions_sink(extensions, sizeof extensions);
  const bool deflate =
      handshake.deflate.enabled && proto::ws::write_deflate_response(handshake.deflate, extensions_sink);
  exchange->response = std::make_unique<H2WsResponse>(*h2_, *this, stream, std::string(handshake.subprotocol),
                                                      deflate ? std::string(extensions_sink.text()) : std::string());
  if (!stream_answers && !exchange->response->respond(200)) {
    exchanges_.retire(*exchange);
    return nullptr;
  }
  exchange->outlet = std::make_unique<H2StreamOutlet>(session_.loop(), *queue, *this, stream);
  exchange->peer->take_credentials(connection);
  exchange->ws = make(WsSetup{*exchange->outlet, services_, handshake.deflate, *exchange->peer, false,
                              &session_.memory(), stream_answers ? exchange->response.get() : nullptr});
  WsStream* const made = exchange->ws.get();
  // As over HTTP/1.1: an on_open that throws closes the stream as the
  // server's failure (its on_close still follows).
  if (!exchange->peer->opened(request)) made->refuse(proto::ws::CloseCode::internal_error, "server error");
  return made;
}

// Bytes the stream decoded (or that arrived after it ended) are given
// back to the client's window; bytes it holds are not.
void H2Connection::feed_websocket(H2Exchange& exchange, std::string_view bytes) {
  if (exchange.outlet->ended()) {
    h2_->consume(exchange.id, exchange.unread.size() + bytes.size());
    exchange.unread.clear();
    return;
  }
  exchange.unread.append(bytes);
  const std::size_t before = exchange.unread.size();
  exchange.ws->on_input(exchange.unread);
  if (before > exchange.unread.size()) h2_->consume(exchange.id, before - exchange.unread.size());
  session_.want_flush();
}

void H2Connection::resume_input(std::int32_t stream) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange == nullptr || !exchange->ws) return;
  feed_websocket(*exchange, {});
  if (exchange->ws_ended) end_websocket_input(*exchange);
  end_if_owed_nothing();  // the connection's own end may have waited for these messages
}

// Once the stream owes nothing more for what its client sent, it closes
// after its queue drains.
void H2Connection::end_websocket_input(H2Exchange& exchange) {
  exchange.ws_ended = false;
  if (exchange.outlet->ended()) return;
  exchange.ws_ended = exchange.ws->on_peer_eof();
  if (!exchange.ws_ended) exchange.outlet->close_after_flush(conn::CloseReason::peer);
}

}  // namespace sluice::session
