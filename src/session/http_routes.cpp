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
#include "session/publish_metrics.hpp"
#include "session/request_target.hpp"
#include "session/services.hpp"
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

constexpr std::string_view kSsePrefix = "/sse";
constexpr std::string_view kPublishPrefix = "/pub/";
constexpr std::string_view kWsPrefix = "/ws";

proto::ws::HandshakeRequest handshake_request(const Request& r) {
  return {r.method_text,
          r.version_minor,
          r.header("Upgrade"),
          r.header("Connection"),
          r.header("Sec-WebSocket-Key"),
          r.header("Sec-WebSocket-Version"),
          r.header("Sec-WebSocket-Protocol"),
          r.header("Sec-WebSocket-Extensions"),
          r.header("Origin")};
}

}  // namespace

void HttpRequestPhase::route(const Request& request) {
  keep_alive_ = request.keep_alive;
  if (const AuthOutcome outcome = session_.peer().authorize(Action::connect, {}, request); !outcome.allowed()) {
    return deny(outcome);
  }
  const OriginVerdict origin = judge_origin(request.header("Origin"), request.header("Host"), origin_rule());
  if (origin == OriginVerdict::refused) {
    keep_alive_ = false;
    return respond({.status = 403, .body = "origin not allowed (ws.allowed_origins)\n"});
  }
  if (request.method == Method::options) {
    char cors[1024];
    return respond({.status = 204, .extra_headers = cors_headers(cors_origin(request), true, cors)});
  }
  const std::string_view path = request.path;
  if (path == "/healthz") {
    if (request.method != Method::get && request.method != Method::head) return method_not_allowed("GET");
    return respond({.status = 200, .body = "ok\n"});
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

void HttpRequestPhase::publish(const Request& request, std::string_view raw_topic) {
  char topic_buf[1024];
  char event_buf[256];
  char key_buf[256];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  if (const AuthOutcome outcome = session_.peer().authorize(Action::publish, topic, request); !outcome.allowed()) {
    return deny(outcome);
  }
  const std::string_view raw_event = query_value(request.query, "event");
  const std::string_view raw_key = query_value(request.query, "key");
  const std::string_view event = decode_into(raw_event, event_buf, sizeof event_buf);
  const std::string_view key = decode_into(raw_key, key_buf, sizeof key_buf);
  // A name that does not decode (too long, a broken %-escape) is refused,
  // never published as if it had not been given.
  if (event.empty() && !raw_event.empty()) return refuse(hub::HubStatus::bad_event);
  if (key.empty() && !raw_key.empty()) {
    return respond({.status = 400, .body = "bad key: at most 255 bytes, %-escapes well formed\n"});
  }
  if (BrokerPublishes* publishes = services_.broker_publishes()) {
    return publish_to_broker(*publishes, request, topic, {request.body, event, key});
  }
  hub::Hub& hub = services_.hub();
  const hub::PublishResult result = hub.publish(topic, {request.body, event, key}, &session_.peer().topic_allowance());
  count_publish(services_.metrics(), result.status);
  if (result.status != hub::HubStatus::ok) return refuse(result.status);
  char id_text[hub::kMaxIdText];
  const std::size_t id_length = hub.format_id(result.id, id_text);
  // Appended, not printf-formatted: this runs once per published event.
  char json[1300];
  buf::FixedSink out(json, sizeof json);
  out.append("{\"topic\":\"");
  out.append(topic);
  out.append("\",\"id\":\"");
  out.append(id_text, id_length);
  out.append("\",\"subscribers\":");
  char count[24];
  const auto [count_end, ec] = std::to_chars(count, count + sizeof count, result.subscribers);
  out.append(count, static_cast<std::size_t>(count_end - count));
  out.append("}\n");
  char cors[1024];
  respond({.status = 200,
           .content_type = "application/json",
           .body = out.text(),
           .extra_headers = cors_headers(cors_origin(request), false, cors)});
}

void HttpRequestPhase::start_sse(const Request& request, std::string_view path_topic) {
  const auto& config = services_.config();
  std::optional<Policy> requested;
  if (const std::string_view name = query_value(request.query, "policy"); !name.empty()) {
    requested = delivery::parse_policy(name);
    if (!requested || !config.policy.allows(*requested)) {
      return respond({.status = 400, .body = "policy not offered here\n"});
    }
  }
  // Browsers send Last-Event-ID only when they reconnect; a first
  // connection that wants to resume says ?lastEventId=.
  char id_buf[hub::kMaxIdText * 2];
  std::string_view last_id = request.header("Last-Event-ID");
  if (last_id.empty()) last_id = decode_into(query_value(request.query, "lastEventId"), id_buf, sizeof id_buf);

  std::vector<std::string> topics;
  char topic_buf[1024];
  if (!path_topic.empty()) topics.emplace_back(decode_into(path_topic, topic_buf, sizeof topic_buf));
  proto::url::QueryIterator it(request.query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key == "topic") topics.emplace_back(decode_into(value, topic_buf, sizeof topic_buf));
  }
  if (topics.empty()) return respond({.status = 400, .body = "name a topic: /sse/{topic} or ?topic=\n"});
  const std::size_t max_name = config.hub.max_topic_name;
  if (topics.size() > static_cast<std::size_t>(config.max_topics_per_connection) ||
      !std::all_of(topics.begin(), topics.end(), [&](const auto& t) { return proto::valid_topic_name(t, max_name); })) {
    return fail(400);
  }
  // Every topic is allowed before the head goes out: a refusal is then a
  // plain HTTP status, which EventSource reports and does not retry.
  for (const std::string& topic : topics) {
    if (const AuthOutcome outcome = session_.peer().authorize(Action::subscribe, topic, request); !outcome.allowed()) {
      return deny(outcome);
    }
  }
  auto stream = std::make_unique<SseStream>(session_, services_, session_.peer().topic_allowance());
  SseStream& sse = *stream;
  handed_over_ = true;
  session_.become(std::move(stream));
  sse.open(topics, requested, last_id, cors_origin(request));
}

OriginRule HttpRequestPhase::origin_rule() const {
  return {services_.allowed_origins(), services_.auth_gate().installed(), services_.config().tls.enabled()};
}

// What a page on an allowed origin needs to read a stream or a publish's
// reply (origin_check.hpp).
std::string_view HttpRequestPhase::cors_origin(const Request& request) const {
  const std::string_view origin = request.header("Origin");
  const OriginRule rule = origin_rule();
  return allow_origin_value(judge_origin(origin, request.header("Host"), rule), origin, rule);
}

void HttpRequestPhase::upgrade_topic(const Request& request, std::string_view raw_topic) {
  char topic_buf[1024];
  std::string topic(decode_into(raw_topic, topic_buf, sizeof topic_buf));
  const AuthOutcome verdict = session_.peer().authorize(Action::subscribe, topic, request);
  WsTopicStream* opened = nullptr;
  const WsStream* stream = upgrade(
      request,
      [&](const WsSetup& setup) {
        auto made = std::make_unique<WsTopicStream>(setup, std::move(topic));
        opened = made.get();
        return made;
      },
      verdict);
  if (stream != nullptr && !stream->close_sent()) opened->open(request.header("Last-Event-ID"));
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
  // The Origin was judged with every other route's (route()).
  const proto::ws::HandshakeOptions options{services_.subprotocols(), {}, services_.config().ws.deflate != 0};
  const proto::ws::HandshakeResult result = proto::ws::check_handshake(handshake_request(request), options);
  if (result.http_status != 101) {
    keep_alive_ = false;
    if (result.http_status == 426) {
      respond({.status = 426, .body = "WebSocket version 13 only\n", .extra_headers = "Sec-WebSocket-Version: 13\r\n"});
      return nullptr;
    }
    respond({.status = result.http_status, .body = result.reason});
    return nullptr;
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
  auto made = make(WsSetup{session_, services_, result.deflate, session_.peer()});
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
