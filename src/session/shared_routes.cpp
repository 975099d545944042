#include "session/shared_routes.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "buf/fixed_sink.hpp"
#include "proto/topic_name.hpp"
#include "session/host_check.hpp"
#include "session/ops_answers.hpp"
#include "session/peer.hpp"
#include "session/publish_metrics.hpp"
#include "session/request_target.hpp"
#include "session/services.hpp"

namespace sluice::session {

namespace {

using server::Action;

std::string_view clipped(const char* text, int n, std::size_t capacity) {
  return std::string_view(text, std::min(static_cast<std::size_t>(std::max(n, 0)), capacity - 1));
}

// `status` (413, 414, 431), naming the limit `what` went over and its value;
// the connection closes after it (the rest of the request is not read).
Response over_limit(int status, std::string_view what, std::size_t limit, const char* unit, ReplyText& text) {
  const int n = std::snprintf(text.body, sizeof text.body, "%d %s: %.*s (%zu %s)\n", status,
                              proto::http1::status_reason(status), static_cast<int>(what.size()), what.data(), limit,
                              unit);
  return {.status = status, .body = clipped(text.body, n, sizeof text.body), .keep_alive = false};
}

Response too_large(std::string_view what, std::size_t limit, ReplyText& text) {
  return over_limit(413, what, limit, "bytes", text);
}

}  // namespace

bool event_stream_path(std::string_view path) {
  return path == kSsePrefix || path.starts_with("/sse/") || path == kDashboardEventsPath;
}

// 421 Misdirected Request: the request reached a server that does not
// answer for the name it was sent to, which is what a DNS-rebound page's
// request is. Not 403: nothing about the client is refused, only the name,
// and a client that sent the right name to the same address is served.
std::optional<Response> host_refusal(const LoopServices& services, const proto::http1::Request& request) {
  if (host_allowed(request.host(), services.allowed_hosts())) return std::nullopt;
  return Response{.status = 421, .body = "this server does not answer to that Host name (http.allowed_hosts)\n",
                  .keep_alive = false};
}

OriginRule origin_rule(LoopServices& services) {
  return {services.allowed_origins(), services.auth_gate().installed(), services.config().tls.enabled()};
}

bool request_writes(const LoopServices& services, const proto::http1::Request& request, bool websocket) {
  if (request.method == proto::http1::Method::post) return true;
  if (!websocket) return false;
  return !request.path.starts_with("/ws/") || services.ws_route(request.path) != nullptr;
}

bool origin_reads_only(LoopServices& services, const proto::http1::Request& request) {
  return judge_origin(request.header("Origin"), request.host(), origin_rule(services)) == OriginVerdict::open;
}

std::optional<Response> origin_refusal(LoopServices& services, const proto::http1::Request& request, bool writes) {
  const OriginVerdict verdict = judge_origin(request.header("Origin"), request.host(), origin_rule(services));
  if (verdict == OriginVerdict::refused) {
    return Response{.status = 403, .body = "origin not allowed (ws.allowed_origins)\n"};
  }
  if (verdict == OriginVerdict::open && writes) {
    return Response{.status = 403, .body = "a page on another origin may not publish: list it in ws.allowed_origins\n"};
  }
  return std::nullopt;
}

std::string_view cors_origin(LoopServices& services, const proto::http1::Request& request) {
  const std::string_view origin = request.header("Origin");
  const OriginRule rule = origin_rule(services);
  return allow_origin_value(judge_origin(origin, request.host(), rule), origin, rule);
}

Response denial(const AuthOutcome& outcome, ReplyText& text) {
  const int n = std::snprintf(text.body, sizeof text.body, "%.*s\n", static_cast<int>(outcome.reason().size()),
                              outcome.reason().data());
  int h = 0;
  if (outcome.retry_after() > 0) {
    h = std::snprintf(text.headers, sizeof text.headers, "Retry-After: %u\r\n", outcome.retry_after());
  } else if (!outcome.challenge().empty()) {
    h = std::snprintf(text.headers, sizeof text.headers, "WWW-Authenticate: %.*s\r\n",
                      static_cast<int>(outcome.challenge().size()), outcome.challenge().data());
  }
  return {.status = outcome.http_status(),
          .body = clipped(text.body, n, sizeof text.body),
          .keep_alive = false,
          .extra_headers = clipped(text.headers, h, sizeof text.headers)};
}

Response hub_refusal(const HubAnswer& answer, ReplyText& text) {
  const int n =
      std::snprintf(text.body, sizeof text.body, "%.*s\n", static_cast<int>(answer.text.size()), answer.text.data());
  int h = 0;
  if (!answer.retry_after.empty()) {
    h = std::snprintf(text.headers, sizeof text.headers, "Retry-After: %.*s\r\n",
                      static_cast<int>(answer.retry_after.size()), answer.retry_after.data());
  }
  return {.status = answer.http_status,
          .body = clipped(text.body, n, sizeof text.body),
          .extra_headers = clipped(text.headers, h, sizeof text.headers)};
}

Response malformed(int status, ReplyText& text, std::string_view detail) {
  const char* reason = proto::http1::status_reason(status);
  const int n = detail.empty() ? std::snprintf(text.body, sizeof text.body, "%d %s\n", status, reason)
                               : std::snprintf(text.body, sizeof text.body, "%d %s: %.*s\n", status, reason,
                                               static_cast<int>(detail.size()), detail.data());
  return {.status = status, .body = clipped(text.body, n, sizeof text.body), .keep_alive = false};
}

Response body_over_max_body(std::size_t max_body, ReplyText& text) {
  return too_large(proto::http1::kBodyOverMaxBody, max_body, text);
}

Response h2_headers_over_limit(bool fields, std::size_t limit, ReplyText& text) {
  return fields ? over_limit(431, proto::http1::kHeadOverMaxHeaders, limit, "fields", text)
                : over_limit(431, "header list over h2.max_header_list_bytes", limit, "bytes", text);
}

std::optional<Response> over_http_limit(const proto::http1::ParseResult& result, const proto::http1::Limits& limits,
                                        ReplyText& text) {
  namespace http1 = proto::http1;
  if (result.reason == http1::kBodyOverMaxBody) return body_over_max_body(limits.max_body, text);
  if (result.reason == http1::kLineOverMaxRequestLine) {
    return over_limit(414, result.reason, limits.max_request_line, "bytes", text);
  }
  if (result.reason == http1::kHeadOverMaxHeaderBytes) {
    return over_limit(431, result.reason, limits.max_header_bytes, "bytes", text);
  }
  if (result.reason == http1::kHeadOverMaxHeaders) {
    return over_limit(431, result.reason, limits.max_headers, "fields", text);
  }
  return std::nullopt;
}

Response request_over_receive_budget(std::size_t budget, ReplyText& text) {
  return too_large("request over receive.budget_bytes", budget, text);
}

std::optional<Response> check_publish(LoopServices& services, Peer& peer, const proto::http1::Request& request,
                                      std::string_view raw_topic, ReplyText& text, PublishTarget& target) {
  target.topic = decode_into(raw_topic, text.topic, sizeof text.topic);
  if (const AuthOutcome outcome = peer.authorize(Action::publish, target.topic, request); !outcome.allowed()) {
    return denial(outcome, text);
  }
  const std::string_view raw_event = query_value(request.query, "event");
  const std::string_view raw_key = query_value(request.query, "key");
  target.event = decode_into(raw_event, text.event, sizeof text.event);
  target.key = decode_into(raw_key, text.key, sizeof text.key);
  // A name that does not decode (too long, a broken %-escape) is refused,
  // never published as if it had not been given.
  if (target.event.empty() && !raw_event.empty()) return hub_refusal(services.answer(hub::HubStatus::bad_event), text);
  if (target.key.empty() && !raw_key.empty()) {
    return Response{.status = 400, .body = "bad key: at most 255 bytes, %-escapes well formed\n"};
  }
  return std::nullopt;
}

namespace {

// A taken publish's reply: the topic, the event's id and how many of this
// node's subscribers it reached. Appended, not printf-formatted: this runs
// once per published event.
Response published_reply(std::string_view topic, std::string_view id, std::size_t subscribers,
                         std::string_view allow_origin, ReplyText& text) {
  buf::FixedSink out(text.body, sizeof text.body);
  out.append("{\"topic\":\"");
  out.append(topic);
  out.append("\",\"id\":\"");
  out.append(id);
  out.append("\",\"subscribers\":");
  char count[24];
  const auto [count_end, ec] = std::to_chars(count, count + sizeof count, subscribers);
  out.append(count, static_cast<std::size_t>(count_end - count));
  out.append("}\n");
  return {.status = 200,
          .content_type = "application/json",
          .body = out.text(),
          .extra_headers = cors_headers(allow_origin, false, text.headers)};
}

}  // namespace

Response publish_event(LoopServices& services, Peer& peer, const PublishTarget& target, std::string_view body,
                       std::string_view allow_origin, ReplyText& text) {
  hub::Hub& hub = services.hub();
  const hub::PublishResult result = hub.publish(target.topic, {body, target.event, target.key}, &peer.topic_allowance());
  count_publish(services.metrics(), result.status);
  if (result.status != hub::HubStatus::ok) return hub_refusal(services.answer(result.status), text);
  char id_text[hub::kMaxIdText];
  const std::size_t id_length = hub.format_id(result.id, id_text);
  return published_reply(target.topic, std::string_view(id_text, id_length), result.subscribers, allow_origin, text);
}

Response broker_publish_answer(LoopServices& services, broker::PublishStatus status, broker::StreamId id,
                               std::string_view error, std::string_view topic, std::string_view allow_origin,
                               ReplyText& text) {
  if (status != broker::PublishStatus::ok) {
    count_broker_refusal(services.metrics());
    const BrokerRefusal refusal = broker_refusal(status);
    buf::FixedSink out(text.body, sizeof text.body);
    out.append(refusal.text);
    if (!error.empty()) {
      out.append(": ");
      out.append(error.substr(0, 256));
    }
    out.append("\n");
    return {.status = refusal.http_status,
            .body = out.text(),
            .extra_headers = refusal.http_status == 503 ? "Retry-After: 1\r\n" : ""};
  }
  count_publish(services.metrics(), hub::HubStatus::ok);
  char id_text[broker::kMaxEventIdText];
  const std::size_t id_length = broker::format_event_id(id, id_text);
  // This node's subscribers: the other nodes' are not known here.
  return published_reply(topic, std::string_view(id_text, id_length), services.hub().node_subscribers(topic),
                         allow_origin, text);
}

// Browsers send Last-Event-ID only when an EventSource reconnects; a first
// connection that wants to resume, and a browser's WebSocket, which cannot
// set headers, say ?lastEventId=.
std::string_view requested_last_id(const proto::http1::Request& request, ReplyText& text) {
  if (const std::string_view header = request.header("Last-Event-ID"); !header.empty()) return header;
  const std::string_view given = query_value(request.query, "lastEventId");
  const std::string_view decoded = decode_into(given, text.last_id, sizeof text.last_id);
  // One that does not decode (a bad escape, or too long for any id) is
  // still the client's: told as malformed-id, not passed over as none.
  return decoded.empty() ? given : decoded;
}

Response health_answer(LoopServices& services, bool head, ReplyText& text) {
  const BrokerPublishes* broker = services.broker_publishes();
  const std::optional<broker::Unreachable> unreachable = broker != nullptr ? broker->unreachable() : std::nullopt;
  buf::FixedSink body(text.body, sizeof text.body);
  if (!unreachable) {
    // The answer is the node's, whichever loop takes the probe: a loop that
    // can use Redis while another cannot would otherwise answer 200 and 503
    // in turn. Each loop says so at its sweep.
    const std::int64_t cut_off = broker != nullptr ? services.ops().broker_loops_cut_off() : 0;
    if (cut_off <= 0) return {.status = 200, .body = head ? "" : "ok\n"};
    char count[48];
    const int n = std::snprintf(count, sizeof count, "%lld of this node's %zu", static_cast<long long>(cut_off),
                                services.ops().loops());
    body.append("Redis cannot be used from ");
    body.append(std::string_view(count, static_cast<std::size_t>(std::max(n, 0))));
    body.append(" loops: their publishes are refused and their topics not read (broker.url)\n");
    return {.status = 503, .body = head ? "" : body.text(), .extra_headers = "Retry-After: 1\r\n"};
  }
  body.append("Redis at ");
  body.append(std::string_view(unreachable->address).substr(0, 300));
  if (unreachable->answers) {
    body.append(" answers, but this node may not publish to it: ");
    body.append(std::string_view(unreachable->error).substr(0, 400));
    body.append("\n");
  } else {
    body.append(" is not reachable from this node (broker.url)\n");
  }
  return {.status = 503, .body = head ? "" : body.text(), .extra_headers = "Retry-After: 1\r\n"};
}

std::string_view policy_not_offered(const server::PolicyConfig& policy, std::string_view asked,
                                    std::span<char> out) {
  buf::FixedSink line(out.data(), out.size());
  line.append("policy '");
  line.append(asked.substr(0, 32));
  line.append("' is not offered here: ask for one of");
  const char* separator = " ";
  for (int i = 0; i < kPolicyCount; ++i) {
    if (!policy.allows(static_cast<Policy>(i))) continue;
    line.append(separator);
    line.append(delivery::policy_name(static_cast<Policy>(i)));
    separator = ", ";
  }
  line.append(" (policy.allow)");
  return line.text();
}

// Two ids would leave the stream to guess where to resume from, and
// either guess may replay twice or skip.
std::optional<Response> check_one_last_id(const proto::http1::Request& request) {
  if (request.header_count("Last-Event-ID") > 1) {
    return Response{.status = 400, .body = "more than one Last-Event-ID header\n"};
  }
  return std::nullopt;
}

std::optional<Response> check_policy(const server::PolicyConfig& policy, const proto::http1::Request& request,
                                     ReplyText& text, std::optional<Policy>& requested) {
  // Two would leave the stream to guess which the client meant.
  std::size_t asked = 0;
  std::string_view raw;
  proto::url::QueryIterator it(request.query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key != "policy") continue;
    ++asked;
    raw = value;
  }
  if (asked > 1) return Response{.status = 400, .body = "more than one policy in the query\n"};
  if (raw.empty()) return std::nullopt;
  char decoded[64];
  const std::string_view name = decode_into(raw, decoded, sizeof decoded);
  requested = delivery::parse_policy(name);
  if (requested && policy.allows(*requested)) return std::nullopt;
  const std::string_view line = policy_not_offered(policy, name.empty() ? raw : name, {text.body, sizeof text.body - 1});
  text.body[line.size()] = '\n';
  return Response{.status = 400, .body = {text.body, line.size() + 1}};
}

std::optional<Response> check_sse(LoopServices& services, Peer& peer, const proto::http1::Request& request,
                                  std::string_view path_topic, ReplyText& text, SseOpening& opening) {
  const auto& config = services.config();
  if (auto refusal = check_policy(config.policy, request, text, opening.requested)) return refusal;
  if (auto refusal = check_one_last_id(request)) return refusal;
  opening.last_id = requested_last_id(request, text);
  std::vector<std::string>& topics = opening.topics;
  if (!path_topic.empty()) topics.emplace_back(decode_into(path_topic, text.topic, sizeof text.topic));
  proto::url::QueryIterator it(request.query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key == "topic") topics.emplace_back(decode_into(value, text.topic, sizeof text.topic));
  }
  if (topics.empty()) return Response{.status = 400, .body = "name a topic: /sse/{topic} or ?topic=\n"};
  if (topics.size() > static_cast<std::size_t>(config.max_topics_per_connection)) {
    const int n = std::snprintf(text.body, sizeof text.body, "more topics than one stream may follow (%ld, topics.max_per_connection)\n",
                                static_cast<long>(config.max_topics_per_connection));
    return Response{.status = 400, .body = clipped(text.body, n, sizeof text.body)};
  }
  const std::size_t max_name = config.hub.max_topic_name;
  if (!std::all_of(topics.begin(), topics.end(), [&](const auto& t) { return proto::valid_topic_name(t, max_name); })) {
    return hub_refusal(services.answer(hub::HubStatus::bad_topic), text);
  }
  for (const std::string& topic : topics) {
    if (const AuthOutcome outcome = peer.authorize(Action::subscribe, topic, request); !outcome.allowed()) {
      return denial(outcome, text);
    }
  }
  return std::nullopt;
}

}  // namespace sluice::session
