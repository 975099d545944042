// What each path does over HTTP/2: the same routes as over HTTP/1.1
// (http_routes.cpp), through the same checks and answers
// (shared_routes.hpp): health, POST /pub/{topic}, GET /sse streams, and
// every WebSocket route by extended CONNECT (h2_websocket.cpp), and the
// operator pages (ops_answers.hpp): /metrics, /dashboard and the
// dashboard's stream of the system topic.
#include <algorithm>
#include <array>
#include <charconv>

#include <nghttp2/nghttp2.h>

#include "dashboard/system_topic.hpp"
#include "log/access.hpp"
#include "session/h2_connection.hpp"
#include "session/h2_request.hpp"
#include "session/h2_sse_response.hpp"
#include "session/ops_answers.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/shared_routes.hpp"
#include "session/sse_stream.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

namespace {

using proto::http1::Method;
using proto::http1::Request;
using server::Action;


// A stream's access log line: opened ("sse", "ws"), or refused before it
// opened ("http", as a reply is).
std::string_view stream_transport(const H2Exchange& exchange, int status) {
  if (status != 200) return "http";
  return exchange.sse ? "sse" : "ws";
}

Response method_not_allowed(std::string_view allow_line) {
  return {.status = 405, .body = "method not allowed\n", .extra_headers = allow_line};
}

// Header lines ("Name: value\r\n") as HTTP/2 fields, names lower-cased into
// `names`. Returns the fields added after `n`.
std::size_t add_header_lines(std::string_view lines, std::span<transport::H2Header> out, std::size_t n,
                             std::span<char> names) {
  std::size_t used = 0;
  while (!lines.empty() && n < out.size()) {
    const std::size_t end = std::min(lines.find("\r\n"), lines.size());
    const std::string_view line = lines.substr(0, end);
    lines.remove_prefix(std::min(end + 2, lines.size()));
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || used + colon > names.size()) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    char* name = names.data() + used;
    std::transform(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon), name,
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
    out[n++] = {std::string_view(name, colon), value};
    used += colon;
  }
  return n;
}

}  // namespace

void H2Connection::serve(const transport::H2Request& h2request) {
  answered_status_ = 0;
  const Request request = as_http1_request(h2request, fields_);
  routing_head_ = request.method == Method::head;
  route(h2request.stream, request, h2request.protocol, h2request.end_stream);
  routing_head_ = false;
  // Waiting for its authorization: logged once routed with the decision.
  if (!services_.logs_access() || session_.peer().asking_pending()) return;
  // A stream is logged with the status its HEADERS went with; a POST when
  // its reply goes (answer_post), even one whose whole body came with its
  // headers and that waits for Redis's answer already.
  H2Exchange* exchange = exchanges_.find(h2request.stream);
  if (answered_status_ == 0 && exchange != nullptr && (exchange->posting || exchange->awaiting_broker)) {
    exchange->logged_target.assign(request.target);
    exchange->logged_agent.assign(request.header("User-Agent"));
    return;
  }
  const bool stream = answered_status_ == 0 && exchange != nullptr && (exchange->sse || exchange->ws);
  // A stream whose HEADERS wait for its topics' place is logged when they
  // go, with their status (stream_answered()).
  if (stream && exchange->answered == 0) {
    exchange->logged_target.assign(request.target);
    exchange->logged_agent.assign(request.header("User-Agent"));
    return;
  }
  const int status = stream ? exchange->answered : answered_status_;
  log_request(h2request.stream, session_.id(), request.method_text, request.target, request.header("User-Agent"),
              status, stream ? stream_transport(*exchange, status) : "http", 0);
}

void H2Connection::stream_answered(std::int32_t stream, int status) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange == nullptr) return;
  exchange->answered = status;
  if (exchange->logged_target.empty()) return;  // answered while routed: serve() logs it
  log_held(*exchange, status, stream_transport(*exchange, status), 0);
}

// The kept fields are emptied: a request has one line, and an exchange
// let go with its fields still kept was never answered (let_go()).
void H2Connection::log_held(H2Exchange& exchange, int status, std::string_view transport, std::size_t body_bytes) {
  const std::string_view method = exchange.ws ? "CONNECT" : (exchange.sse ? "GET" : "POST");
  log_request(exchange.id, session_.id(), method, exchange.logged_target, exchange.logged_agent, status, transport,
              body_bytes);
  exchange.logged_target.clear();
  exchange.logged_agent.clear();
}

void H2Connection::log_request(std::int32_t stream, std::uint64_t connection, std::string_view method,
                               std::string_view target, std::string_view user_agent, int status,
                               std::string_view transport, std::size_t body_bytes) {
  log::log_access(*services_.logger(), {.method = method,
                                        .target = target,
                                        .status = status,
                                        .transport = transport,
                                        .peer = session_.peer().address(),
                                        .connection = connection,
                                        .stream = stream,
                                        .user_agent = user_agent,
                                        .body_bytes = body_bytes,
                                        .duration_us = 0});
}

void H2Connection::route(std::int32_t stream, const Request& request, std::string_view protocol, bool end_stream) {
  // :authority, or Host when the client sent that instead (h2_request.cpp).
  if (auto refusal = host_refusal(services_, request)) return reply(stream, *refusal);
  ReplyText text;
  if (const AuthOutcome outcome = session_.peer().authorize(Action::connect, {}, request); !outcome.allowed()) {
    return reply(stream, denial(outcome, text));
  }
  const bool websocket = request.method_text == "CONNECT";
  if (auto refusal = origin_refusal(services_, request, request_writes(services_, request, websocket))) {
    return reply(stream, *refusal);
  }
  if (request.method == Method::options) {
    return reply(stream, {.status = 204, .extra_headers = cors_headers(cors_origin(services_, request), true,
                                                                         text.headers)});
  }
  if (websocket) return open_websocket(stream, request, protocol, end_stream);
  std::string metrics_text;
  const OpsAnswer ops = answer_ops(services_, session_.peer(), request, text, metrics_text);
  if (ops.kind == OpsAnswer::Kind::reply) return reply(stream, ops.reply);
  if (ops.kind == OpsAnswer::Kind::follow_system_topic) {
    // A dashboard that falls behind loses the oldest snapshots, never the
    // stream: the next snapshot carries every total again.
    const std::string topic(dashboard::kSystemTopic);
    return start_sse(stream, request, std::span<const std::string>(&topic, 1), Policy::drop_oldest, {});
  }
  const std::string_view path = request.path;
  if (path == "/healthz") {
    if (request.method != Method::get && request.method != Method::head) {
      return reply(stream, method_not_allowed("Allow: GET, HEAD\r\n"));
    }
    // HEAD: the status alone (HTTP/2 has no body to skip).
    return reply(stream, health_answer(services_, request.method == Method::head, text));
  }
  if (path == kSsePrefix || path.starts_with("/sse/")) {
    if (request.method != Method::get) return reply(stream, method_not_allowed("Allow: GET\r\n"));
    return open_sse(stream, request, path.substr(std::min(path.size(), kSsePrefix.size() + 1)));
  }
  if (path.starts_with(kPublishPrefix)) {
    if (request.method != Method::post) return reply(stream, method_not_allowed("Allow: POST\r\n"));
    return begin_post(stream, request, path.substr(kPublishPrefix.size()), end_stream);
  }
  reply(stream, {.status = 404, .body = "no such resource\n"});
}

void H2Connection::open_sse(std::int32_t stream, const Request& request, std::string_view path_topic) {
  ReplyText text;
  SseOpening opening;
  if (auto refusal = check_sse(services_, session_.peer(), request, path_topic, text, opening)) {
    return reply(stream, *refusal);
  }
  start_sse(stream, request, opening.topics, opening.requested, opening.last_id);
}

void H2Connection::start_sse(std::int32_t stream, const Request& request, std::span<const std::string> topics,
                             std::optional<Policy> requested, std::string_view last_id) {
  conn::OutQueue* queue = h2_->queue(stream);
  if (queue == nullptr) return;
  H2Exchange* exchange = open_exchange(stream);
  if (exchange == nullptr) return;
  // The HEADERS go with the stream's head: at once, or with a broker once
  // its topics are placed (SseStream::open).
  exchange->response =
      std::make_unique<H2SseResponse>(*h2_, *this, stream, std::string(cors_origin(services_, request)));
  exchange->outlet = std::make_unique<H2StreamOutlet>(session_.loop(), *queue, *this, stream);
  exchange->sse = std::make_unique<SseStream>(*exchange->outlet, services_, session_.peer(),
                                              SseCarrier::h2_stream, exchange->response.get());
  SseStream& sse = *exchange->sse;
  sse.open(make_sse_preamble(services_.pool(), services_.config().sse_retry_ms), topics, requested, last_id);
  session_.want_flush();
}

// The publish is checked (names, the authorizer) when its headers arrive
// and made when its body is whole; the body is held meanwhile in pool
// blocks, counted against the connection's receive budget across all its
// streams.
void H2Connection::begin_post(std::int32_t stream, const Request& request, std::string_view raw_topic,
                              bool end_stream) {
  ReplyText text;
  PublishTarget target;
  if (auto refusal = check_publish(services_, session_.peer(), request, raw_topic, text, target)) {
    return reply(stream, *refusal);
  }
  // A body declared past http.max_body is refused at its headers, as over
  // HTTP/1.1, not once that much of it has been read (or, never sent, at
  // the request timeout).
  const std::size_t max_body = services_.h2_limits().max_body;
  const std::string_view length = request.header("content-length");
  std::uint64_t declared = 0;
  if (std::from_chars(length.data(), length.data() + length.size(), declared).ec == std::errc() &&
      declared > max_body) {
    reply(stream, body_over_max_body(max_body, text));
    return h2_->stop_sender_after_answer(stream);
  }
  H2Exchange* post = open_exchange(stream);
  if (post == nullptr) return;
  // assign() keeps each string's capacity from the exchange's last stream.
  post->posting = true;
  post->posting_since = session_.loop().now();
  post->topic.assign(target.topic);
  post->event.assign(target.event);
  post->key.assign(target.key);
  post->allow_origin.assign(cors_origin(services_, request));
  if (end_stream) return finish_post(*post);
  // Its client may wait for this before it sends the body (curl does, for
  // a second); the headers' checks have passed.
  if (request.expects_continue()) h2_->send_continue(stream);
}

void H2Connection::on_data(std::int32_t stream, std::string_view bytes) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange != nullptr && exchange->ws) return feed_websocket(*exchange, bytes);
  // Kept unread until the decision says where it goes (h2_waiting.hpp).
  if (exchange != nullptr && exchange->waits_for_authorization()) return (void)exchange->unread.append(bytes);
  h2_->consume(stream, bytes.size());
  if (exchange == nullptr || !exchange->posting) return;  // nothing reads it: dropped
  // Counted as the pool bytes the bodies hold, whole blocks: a stream's
  // first byte takes one.
  H2Body& body = exchange->body;
  const std::size_t budget = services_.connection_limits().receive_budget;
  const std::size_t growth_bytes = body.growth_for(bytes.size());
  // One body that alone could never fit is told so (413): a retry would
  // meet the same limit.
  if (body.held_bytes() + growth_bytes > budget) {
    return refuse_post(*exchange, {.status = 413,
                                   .body = "request body over receive.budget_bytes, counted in whole pool blocks "
                                           "(pool.block_size)\n"});
  }
  const bool over_budget = body_bytes_ + growth_bytes > budget;
  const std::size_t held_before = body.held_bytes();
  const std::size_t size_before = body.size();
  const BodyGrowth growth = over_budget ? BodyGrowth::ok : take_body(*exchange, bytes);
  body_bytes_ += body.held_bytes() - held_before;
  if (!over_budget && growth == BodyGrowth::ok) return;
  const buf::BlockShare* share = services_.h2_bodies();
  const std::size_t left = bytes.size() - (body.size() - size_before);  // not taken
  if (growth == BodyGrowth::share_full && share != nullptr &&
      body.held_bytes() + body.growth_for(left) > share->limit() * services_.pool().block_size()) {
    return refuse_post(*exchange, {.status = 413, .body = "request body over the pool blocks bodies may hold "
                                                          "(h2.body_blocks)\n"});
  }
  refuse_post(*exchange,
              {.status = 503,
               .body = over_budget ? "request bodies on this connection over receive.budget_bytes, retry\n"
               : growth == BodyGrowth::share_full
                   ? "request bodies still arriving hold all the pool blocks they may (h2.body_blocks), retry\n"
                   : "no buffer room for the request body, retry\n",
               .extra_headers = "Retry-After: 1\r\n"});
}

// Answered before its body ended: the client is told to stop sending it
// (RST_STREAM(NO_ERROR) once the answer is out), and the line logged with
// the status it got.
void H2Connection::refuse_post(H2Exchange& exchange, const Response& refusal) {
  drop_body(exchange);
  answer_post(exchange, refusal);
  h2_->stop_sender_after_answer(exchange.id);
}

void H2Connection::drop_body(H2Exchange& exchange) {
  body_bytes_ -= exchange.body.held_bytes();
  exchange.body.clear();
  exchange.posting = false;
}

// The body waits in pool blocks: short of them, kept history gives way
// as it does for a publish (a body read over HTTP/1.1 waits in the
// connection's own buffer and never meets the pool).
BodyGrowth H2Connection::take_body(H2Exchange& exchange, std::string_view bytes) {
  for (;;) {
    const std::size_t before = exchange.body.size();
    const BodyGrowth growth = exchange.body.append(bytes);
    if (growth != BodyGrowth::pool_short) return growth;
    bytes.remove_prefix(exchange.body.size() - before);
    if (!services_.hub().make_pool_room()) return growth;
  }
}

void H2Connection::on_end(std::int32_t stream) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange == nullptr) return;
  if (exchange->waits_for_authorization()) {
    exchange->waiting->client_ended = true;
    return;
  }
  if (exchange->posting) return finish_post(*exchange);
  // A WebSocket's client is done sending, as at a TCP half-close.
  if (exchange->ws) end_websocket_input(*exchange);
}

namespace {

// The joined body did not fit the connection's memory account: named as
// an HTTP/1.1 body past the same limits is.
Response memory_refusal(buf::Growth growth) {
  if (growth == buf::Growth::over_connection) {
    return {.status = 413, .body = "request body over this connection's memory (limits.connection_bytes)\n"};
  }
  return {.status = 503,
          .body = "server memory for request bodies is full (limits.server_bytes)\n",
          .extra_headers = "Retry-After: 1\r\n"};
}

}  // namespace

void H2Connection::finish_post(H2Exchange& post) {
  const JoinedBody body = post.body.view(joined_);
  post.posted_bytes = post.body.size();
  BrokerPublishes* broker = services_.broker_publishes();
  if (body.growth == buf::Growth::ok && broker != nullptr) {
    publish_to_broker(*broker, post, body.bytes);  // the broker has its own copy now
  } else {
    ReplyText text;
    const PublishTarget target{post.topic, post.event, post.key};
    answer_post(post, body.growth == buf::Growth::ok
                          ? publish_event(services_, session_.peer(), target, body.bytes, post.allow_origin, text)
                          : memory_refusal(body.growth));
  }
  joined_.trim();  // a large body's copy goes back once published
  body_bytes_ -= post.body.held_bytes();
  post.body.clear();
  post.posting = false;
}

void H2Connection::answer_post(H2Exchange& post, const Response& answer) {
  if (!post.logged_target.empty()) log_held(post, answer.status, "http", post.posted_bytes);
  reply(post.id, answer);
}

// An exchange for `stream`; when the connection's are all in use (streams
// that closed in this very read are not reused until it ends), the stream
// is refused and the client may retry it.
H2Exchange* H2Connection::open_exchange(std::int32_t stream) {
  // A stream that waited for its authorization has its exchange already.
  if (H2Exchange* waited = exchanges_.find(stream); waited != nullptr && waited->waiting) return waited;
  H2Exchange* exchange = exchanges_.open(stream);
  if (exchange == nullptr) {
    answered_status_ = 503;
    reset_stream(stream, NGHTTP2_REFUSED_STREAM);
  }
  return exchange;
}

void H2Connection::reply(std::int32_t stream, const Response& response) {
  // A check answered "later": whatever route() made of it is not sent; the
  // request is routed again once the decision has come.
  if (session_.peer().asking_pending()) return;
  answered_status_ = response.status;
  std::array<transport::H2Header, 12> headers;
  std::size_t n = 0;
  headers[n++] = {"server", "sluice"};
  char length[24];
  // A reply to HEAD says what GET would have, with no DATA: a client
  // counts DATA after a HEAD as a protocol error.
  const bool body = !response.body.empty() && !routing_head_;
  if (body) {
    headers[n++] = {"content-type", response.content_type};
    const auto [end, ec] = std::to_chars(length, length + sizeof length, response.body.size());
    headers[n++] = {"content-length", std::string_view(length, static_cast<std::size_t>(end - length))};
  }
  char names[512];
  n = add_header_lines(response.extra_headers, headers, n, names);
  if (!h2_->respond(stream, response.status, std::span(headers.data(), n), body)) return;
  if (body) {
    conn::OutQueue* queue = h2_->queue(stream);
    buf::FrameRef frame = buf::make_frame(services_.pool(), buf::Lane::control, response.body);
    if (queue == nullptr || !frame || queue->push_control(std::move(frame)) != conn::EnqueueStatus::ok) {
      h2_->reset(stream, NGHTTP2_INTERNAL_ERROR);
    } else {
      h2_->finish(stream);
    }
  }
  session_.want_flush();
}

}  // namespace sluice::session
