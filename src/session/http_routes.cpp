// What each request path does: health, publishing by POST, opening an SSE
// stream, and the WebSocket upgrades (a topic, the JSON protocol, a
// publisher, or an endpoint registered with the server).
#include <algorithm>
#include <charconv>
#include <vector>

#include "buf/fixed_sink.hpp"
#include "hub/event_id.hpp"
#include "proto/topic_name.hpp"
#include "proto/ws_handshake.hpp"
#include "session/http_request.hpp"
#include "session/origin_check.hpp"
#include "session/request_target.hpp"
#include "session/services.hpp"
#include "session/shared_routes.hpp"
#include "session/session.hpp"
#include "session/sse_stream.hpp"
#include "session/ws_json_stream.hpp"
#include "session/ws_publisher_stream.hpp"
#include "session/ws_topic_stream.hpp"

namespace sluice::session {

namespace {

using proto::http1::Method;
using proto::http1::Request;
using server::Action;

constexpr std::string_view kWsPrefix = "/ws";

}  // namespace

void HttpRequestPhase::route(const Request& request) {
  keep_alive_ = request.keep_alive;
  if (auto refusal = host_refusal(services_, request)) return respond(*refusal);
  if (const AuthOutcome outcome = session_.peer().authorize(Action::connect, {}, request); !outcome.allowed()) {
    // A WebSocket refused by who it is (a bad or expired token, the
    // connect rate) is told as one refused by what it asks for: the 101
    // and a close with the code and reason, which a browser's page can
    // read, where a refused upgrade's status reaches it as a bare 1006.
    // Only a page of an origin that may open it reads that: to any other
    // the reason would tell the state of its visitor's token.
    if (!outcome.is_pending() && session_.door() != Door::admin && asks_for_websocket(request)) {
      if (auto refusal = origin_refusal(services_, request, request_writes(services_, request, true))) {
        keep_alive_ = false;
        return respond(*refusal);
      }
      upgrade(request, [](const WsSetup& setup) { return std::make_unique<WsJsonStream>(setup); }, outcome);
      return;
    }
    return deny(outcome);
  }
  if (session_.door() == Door::admin) return route_admin(request);
  const bool websocket = !request.header("Upgrade").empty();
  if (auto refusal = origin_refusal(services_, request, request_writes(services_, request, websocket))) {
    keep_alive_ = false;
    return respond(*refusal);
  }
  if (request.method == Method::options) {
    char cors[1024];
    return respond({.status = 204, .extra_headers = cors_headers(cors_origin(request), true, cors)});
  }
  const std::string_view path = request.path;
  if (path == "/healthz") {
    if (request.method != Method::get && request.method != Method::head) return method_not_allowed("GET, HEAD");
    ReplyText text;
    return respond(health_answer(services_, false, text));  // a HEAD's reply is cut to its head (respond())
  }
  if (route_ops(request)) return;
  if (path == kSsePrefix || path.starts_with("/sse/")) {
    if (request.method != Method::get) return method_not_allowed("GET");
    return start_sse(request, path.substr(std::min(path.size(), kSsePrefix.size() + 1)));
  }
  if (path.starts_with(kPublishPrefix)) {
    if (request.method == Method::get && !request.header("Upgrade").empty()) {
      return upgrade_publisher(request, path.substr(kPublishPrefix.size()));
    }
    if (request.method != Method::post) return method_not_allowed("POST");
    return publish(request, path.substr(kPublishPrefix.size()));
  }
  const WsRoute* registered = services_.ws_route(path);
  if (path == kWsPrefix || path.starts_with("/ws/") || registered != nullptr) {
    if (request.method != Method::get) return method_not_allowed("GET");
    if (registered != nullptr) {
      upgrade(request, registered->make);
      return;
    }
    if (path == kWsPrefix) {
      upgrade(request, [](const WsSetup& setup) { return std::make_unique<WsJsonStream>(setup); });
      return;
    }
    return upgrade_topic(request, path.substr(kWsPrefix.size() + 1));
  }
  respond({.status = 404, .body = "no such resource\n"});
}

// The paths route() opens a stream on, whatever the checks answer.
bool HttpRequestPhase::asks_for_stream(const Request& request) const {
  if (request.method != Method::get) return false;
  const std::string_view path = request.path;
  if (path.starts_with(kPublishPrefix)) return !request.header("Upgrade").empty();
  return event_stream_path(path) || path == kWsPrefix || path.starts_with("/ws/") || services_.ws_route(path) != nullptr;
}

// Of those, the ones that upgrade: every stream but an event stream.
bool HttpRequestPhase::asks_for_websocket(const Request& request) const {
  return asks_for_stream(request) && !request.header("Upgrade").empty() && !event_stream_path(request.path);
}

void HttpRequestPhase::publish(const Request& request, std::string_view raw_topic) {
  ReplyText text;
  PublishTarget target;
  if (auto refusal = check_publish(services_, session_.peer(), request, raw_topic, text, target)) {
    return respond(*refusal);
  }
  if (BrokerPublishes* publishes = services_.broker_publishes()) {
    return publish_to_broker(*publishes, request, target.topic, {request.body, target.event, target.key});
  }
  respond(publish_event(services_, session_.peer(), target, request.body, cors_origin(request), text));
}

void HttpRequestPhase::start_sse(const Request& request, std::string_view path_topic) {
  ReplyText text;
  SseOpening opening;
  if (auto refusal = check_sse(services_, session_.peer(), request, path_topic, text, opening)) {
    return respond(*refusal);
  }
  auto stream = std::make_unique<SseStream>(session_, services_, session_.peer());
  SseStream& sse = *stream;
  handed_over_ = true;
  session_.become(std::move(stream));
  sse.open(make_sse_head(services_.pool(), services_.config().sse_retry_ms, cors_origin(request)), opening.topics,
           opening.requested, opening.last_id);
  if (sse.head_held()) hand_line_to_stream(sse.access_line(), request, "sse");
}

// An answer held for its topics' place: the request's line says what the
// client is answered, once it is, and the stream writes it.
void HttpRequestPhase::hand_line_to_stream(HeldAccessLine& line, const Request& request, std::string_view transport) {
  if (!services_.logs_access()) return;
  stream_logs_request_ = true;
  line.hold(*services_.logger(),
            {.method = request.method_text,
             .target = request.target,
             .transport = transport,
             .peer = session_.peer().address(),
             .connection = session_.id(),
             .user_agent = request.header("User-Agent"),
             .body_bytes = request.body.size()},
            request_started_);
}

OriginRule HttpRequestPhase::origin_rule() const { return session::origin_rule(services_); }

std::string_view HttpRequestPhase::cors_origin(const Request& request) const {
  return session::cors_origin(services_, request);
}

void HttpRequestPhase::upgrade_topic(const Request& request, std::string_view raw_topic) {
  if (auto refusal = check_one_last_id(request)) {
    keep_alive_ = false;
    return respond(*refusal);
  }
  ReplyText text;
  std::optional<Policy> policy;
  if (auto refusal = check_policy(services_.config().policy, request, text, policy)) {
    keep_alive_ = false;
    return respond(*refusal);
  }
  char topic_buf[1024];
  std::string topic(decode_into(raw_topic, topic_buf, sizeof topic_buf));
  // Refused before the upgrade, as a publisher's topic is (the server's own
  // names, "$sys", are outside the alphabet).
  if (!proto::valid_topic_name(topic, services_.hub().limits().max_topic_name)) {
    keep_alive_ = false;
    return refuse(hub::HubStatus::bad_topic);
  }
  const AuthOutcome verdict = session_.peer().authorize(Action::subscribe, topic, request);
  WsTopicStream* opened = nullptr;
  const WsStream* stream = upgrade(
      request,
      [&](const WsSetup& setup) {
        auto made = std::make_unique<WsTopicStream>(setup, std::move(topic));
        if (origin_reads_only(services_, request)) made->read_only();
        opened = made.get();
        return made;
      },
      verdict);
  if (stream == nullptr || stream->close_sent()) return;
  opened->open(requested_last_id(request, text), policy);
  if (opened->answer_held()) hand_line_to_stream(opened->access_line(), request, "ws");
}

// GET /pub/{topic} as a WebSocket: every message the client sends is
// published to {topic}.
void HttpRequestPhase::upgrade_publisher(const Request& request, std::string_view raw_topic) {
  if (services_.config().ws.client_publish == 0) {
    keep_alive_ = false;
    return respond({.status = 403, .body = "publishing over WebSocket is switched off (ws.client_publish)\n"});
  }
  char topic_buf[1024];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  if (!proto::valid_topic_name(topic, services_.hub().limits().max_topic_name)) {
    keep_alive_ = false;
    return refuse(hub::HubStatus::bad_topic);
  }
  const AuthOutcome verdict = session_.peer().authorize(Action::publish, topic, request);
  upgrade(
      request,
      [topic = std::string(topic)](const WsSetup& setup) { return std::make_unique<WsPublisherStream>(setup, topic); },
      verdict);
}

// Answers the handshake; on 101 the connection becomes the stream `make`
// builds, and the application hears of it before the stream sends a thing.
// Returns the stream, or null when the handshake failed.
template <typename MakeStream>
WsStream* HttpRequestPhase::upgrade(const Request& request, MakeStream make, const AuthOutcome& verdict) {
  if (verdict.is_pending()) return nullptr;  // upgraded, or not, once the decision has come
  // The Origin was judged in route(), before any upgrade.
  // A refused stream sends its close and nothing else: it takes no
  // compression, whose state would cost every refused client (one over the
  // connect rate included) tens of KiB for nothing.
  const bool deflate = services_.config().ws.deflate != 0 && verdict.allowed();
  const proto::ws::HandshakeOptions options{services_.subprotocols(), {}, deflate};
  const proto::ws::HandshakeResult result = proto::ws::check_handshake(proto::ws::handshake_request(request), options);
  if (result.http_status != 101) {
    keep_alive_ = false;
    if (result.http_status == 426) {
      respond({.status = 426, .body = "WebSocket version 13 only\n", .extra_headers = "Sec-WebSocket-Version: 13\r\n"});
      return nullptr;
    }
    respond({.status = result.http_status, .body = result.reason});
    return nullptr;
  }
  // The copy of the request its later checks are shown is charged before
  // the 101, so a refusal is still a status.
  if (verdict.allowed()) {
    if (const buf::ChargeStatus kept = session_.peer().keep_request(request, &session_.memory());
        kept != buf::ChargeStatus::ok) {
      keep_alive_ = false;
      fail_for_memory(kept);
      return nullptr;
    }
  }
  buf::FrameBuilder builder(services_.pool(), buf::Lane::control);
  buf::FrameRef reply =
      proto::ws::write_handshake_response(result, builder) ? builder.finish() : buf::FrameRef();
  if (!reply || session_.send_control(std::move(reply)) != conn::EnqueueStatus::ok) {
    session_.close_now(conn::CloseReason::io_error);
    return nullptr;
  }
  // From here on the connection speaks WebSocket, so a replay is framed as
  // messages.
  handed_over_ = true;
  auto made = make(WsSetup{session_, services_, result.deflate, session_.peer(), true, &session_.memory()});
  WsStream* const stream = made.get();
  session_.become(std::move(made));
  // A refused stream never opens for the application: no on_open, no
  // on_close, nothing subscribed or published; bytes the client sent behind
  // the upgrade meet a stream that has ended.
  if (!verdict.allowed()) {
    stream->refuse(verdict.close_code(), verdict.text());
  } else if (!session_.peer().opened(request)) {
    stream->refuse(proto::ws::CloseCode::internal_error, "server error");
  }
  return stream;
}

}  // namespace sluice::session
