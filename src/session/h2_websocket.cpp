// WebSocket over HTTP/2 (extended CONNECT): a stream opened with :method
// CONNECT and :protocol websocket on /ws/{topic} is answered 200 and from
// then on its DATA, both ways, carries WebSocket frames: the same
// WsTopicStream as over HTTP/1.1, writing to the stream's outlet, its
// frames decoded by the same codec (masked client frames, limits, close
// handshake, pings). The engine announces SETTINGS_ENABLE_CONNECT_PROTOCOL
// so that clients know they may.
//
// Flow control is backpressure both ways: what the stream sends waits in
// its queue behind a shut window, where its policy acts on it; what the
// client sends is given back to its window only as the stream decodes it,
// so a stream that holds its input (a message waiting to be published)
// stops the client at one window's worth.
#include <array>

#include <nghttp2/nghttp2.h>

#include "buf/fixed_sink.hpp"
#include "proto/ws_handshake.hpp"
#include "session/h2_connection.hpp"
#include "session/request_target.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/shared_routes.hpp"
#include "session/ws_topic_stream.hpp"

namespace sluice::session {

namespace {

constexpr std::string_view kWsTopicPrefix = "/ws/";

}  // namespace

void H2Connection::open_websocket(std::int32_t stream, const proto::http1::Request& request,
                                  std::string_view protocol, bool end_stream) {
  if (protocol.empty()) {
    return reply(stream, {.status = 405,
                          .body = "CONNECT is served only as a WebSocket (:protocol websocket) on /ws/{topic}\n",
                          .extra_headers = "Allow: GET, POST\r\n"});
  }
  const proto::ws::HandshakeOptions options{services_.subprotocols(), {}, services_.config().ws.deflate != 0};
  const proto::ws::HandshakeResult result = proto::ws::check_extended_connect(
      {request.method_text, protocol, request.header("sec-websocket-version"), request.header("sec-websocket-protocol"),
       request.header("sec-websocket-extensions"), request.header("origin")},
      options);
  if (result.http_status == 426) {
    return reply(stream, {.status = 426,
                          .body = "WebSocket version 13 only\n",
                          .extra_headers = "Sec-WebSocket-Version: 13\r\n"});
  }
  if (result.http_status != 200) return reply(stream, {.status = result.http_status, .body = result.reason});
  const std::string_view path = request.path;
  if (path == "/ws" || path.starts_with(kPublishPrefix) || services_.ws_route(path) != nullptr) {
    // Their streams rest on the connection (the /ws protocol's token
    // refresh, the application's on_open and ConnectionRef), which here
    // carries many streams.
    return reply(stream, {.status = 501, .body = "this WebSocket route is served over HTTP/1.1 only\n"});
  }
  if (!path.starts_with(kWsTopicPrefix)) return reply(stream, {.status = 404, .body = "no such resource\n"});
  char topic_text[1024];
  const std::string_view topic = decode_into(path.substr(kWsTopicPrefix.size()), topic_text, sizeof topic_text);
  ReplyText text;
  if (const AuthOutcome verdict = session_.peer().authorize(server::Action::subscribe, topic, request);
      !verdict.allowed()) {
    return reply(stream, denial(verdict, text));
  }
  conn::OutQueue* queue = h2_->queue(stream);
  if (queue == nullptr) return;
  H2Exchange* exchange = open_exchange(stream);
  if (exchange == nullptr) return;
  std::array<transport::H2Header, 3> headers{{{"server", "sluice"}}};
  std::size_t n = 1;
  if (!result.subprotocol.empty()) headers[n++] = {"sec-websocket-protocol", result.subprotocol};
  char extensions[128];
  buf::FixedSink extensions_sink(extensions, sizeof extensions);
  if (result.deflate.enabled && proto::ws::write_deflate_response(result.deflate, extensions_sink)) {
    headers[n++] = {"sec-websocket-extensions", extensions_sink.text()};
  }
  if (!h2_->respond(stream, 200, std::span(headers.data(), n), true)) return exchanges_.retire(*exchange);
  exchange->outlet = std::make_unique<H2StreamOutlet>(session_.loop(), *queue, *this, stream);
  auto made = std::make_unique<WsTopicStream>(
      WsSetup{*exchange->outlet, services_, result.deflate, session_.peer(), false}, std::string(topic));
  WsTopicStream& opened = *made;
  exchange->ws = std::move(made);
  opened.open(request.header("last-event-id"));
  if (end_stream) on_end(stream);
  session_.want_flush();
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
  if (exchange != nullptr && exchange->ws) feed_websocket(*exchange, {});
}

}  // namespace sluice::session
