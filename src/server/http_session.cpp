#include <algorithm>
#include <cstdio>

#include "request_helpers.hpp"
#include "buf/fixed_sink.hpp"
#include "hub/event_id.hpp"
#include "hub/topic_name.hpp"
#include "server/session.hpp"
#include "server/worker.hpp"
#include "ws_state.hpp"

namespace sluice::server {

namespace {

using detail::decode_into;
using detail::query_value;
using proto::http1::Method;
using proto::http1::ParseStatus;
using proto::http1::Request;

constexpr std::string_view kSsePrefix = "/sse";
constexpr std::string_view kPublishPrefix = "/pub/";
constexpr std::string_view kWsPrefix = "/ws";

std::size_t count_topics(std::string_view query, std::string_view path_topic) {
  std::size_t count = path_topic.empty() ? 0 : 1;
  proto::url::QueryIterator it(query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) count += key == "topic";
  return count;
}

}  // namespace

Session::Session(Worker& worker, int fd)
    : Connection(worker.loop(), fd, worker.config().connection),
      worker_(worker),
      parser_(worker.config().http),
      request_started_(worker.loop().now()) {}

Session::~Session() { leave_all(); }

void Session::on_input(std::string& input) {
  if (state_ == State::sse) {
    input.clear();  // a stream's client has nothing more to say
    return;
  }
  if (websocket()) return on_ws_input(input);
  if (!partial_) request_started_ = loop().now();
  // Requests are parsed in place and the bytes they used are erased once:
  // erasing each from the front would move the whole pipelined rest.
  std::size_t used = 0;
  while (!closed() && !closing() && state_ == State::request && !replies_full() &&
         handle_one(std::string_view(input).substr(used), used)) {
  }
  input.erase(0, used);
  partial_ = state_ == State::request && !input.empty();
  // Frames a client sent right behind its upgrade request.
  if (websocket() && !input.empty()) on_ws_input(input);
}

bool Session::replies_full() const {
  // Pipelined requests are answered only while there is room for the reply;
  // the rest wait in the input buffer until the replies have been flushed.
  return out_queue().control_frames() + 1 >= out_queue().limits().max_control_frames;
}

void Session::on_drained() {
  if (state_ == State::request && partial_) resume_input();
  if (drops_pending_) want_flush();  // a notice that waited for room goes now
}

bool Session::handle_one(std::string_view input, std::size_t& used) {
  if (input.empty()) return false;
  const proto::http1::ParseResult result = parser_.parse(input);
  switch (result.status) {
    case ParseStatus::need_more:
      // The whole request must fit the receive budget; one that cannot
      // (say, a chunked body with heavy framing) is refused, not stalled.
      if (input.size() >= worker_.config().connection.receive_budget) fail(413);
      return false;
    case ParseStatus::error:
      fail(result.http_status);
      return false;
    case ParseStatus::complete:
      break;
  }
  served_any_ = true;
  handle_request(parser_.request());
  used += result.consumed;
  parser_.reset();
  request_started_ = loop().now();
  return true;
}

void Session::handle_request(const Request& request) {
  keep_alive_ = request.keep_alive;
  const std::string_view path = request.path;
  if (path == "/healthz") {
    if (request.method != Method::get && request.method != Method::head) return method_not_allowed("GET");
    return respond({.status = 200, .body = "ok\n"});
  }
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
  if (path == kWsPrefix || path.starts_with("/ws/") || (path == "/ws-echo" && worker_.config().ws.echo != 0)) {
    if (request.method != Method::get) return method_not_allowed("GET");
    const State target = path == kWsPrefix ? State::ws_json : path == "/ws-echo" ? State::ws_echo : State::ws_topic;
    char topic_buf[1024];
    const std::string_view topic =
        target == State::ws_topic ? decode_into(path.substr(kWsPrefix.size() + 1), topic_buf, sizeof topic_buf) : "";
    return upgrade(request, target, topic);
  }
  respond({.status = 404, .body = "no such resource\n"});
}

void Session::method_not_allowed(std::string_view allow) {
  const std::string header = "Allow: " + std::string(allow) + "\r\n";
  respond({.status = 405, .body = "method not allowed\n", .extra_headers = header});
}

void Session::respond(Response response) {
  response.keep_alive = keep_alive_;
  if (!queue_response(response)) return close_now(conn::CloseReason::io_error);
  if (!keep_alive_) close_after_flush(conn::CloseReason::peer);
}

// A reply rides in the room left in the block of the reply before it when
// that one is still queued: a publisher pipelining hundreds of POSTs then
// gets them answered in one write from a few blocks, where a block each
// would stop its input after send.control_frames replies.
bool Session::queue_response(const Response& response) {
  char text[512];
  buf::FixedSink sink(text, sizeof text);
  write_response(sink, response);
  if (!sink.failed() && mutable_out_queue().append_control(sink.text())) {
    want_flush();
    return true;
  }
  buf::FrameRef frame = sink.failed() ? make_response(worker_.pool(), response)
                                      : buf::make_frame(worker_.pool(), buf::Lane::control, sink.text());
  return frame && send_control(std::move(frame)) == conn::EnqueueStatus::ok;
}

void Session::fail(int status) {
  keep_alive_ = false;
  char body[64];
  const int n = std::snprintf(body, sizeof body, "%d %s\n", status, proto::http1::status_reason(status));
  respond({.status = status, .body = std::string_view(body, static_cast<std::size_t>(n))});
}

void Session::publish(const Request& request, std::string_view raw_topic) {
  char topic_buf[1024];
  char event_buf[256];
  char key_buf[256];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  const std::string_view event = decode_into(query_value(request.query, "event"), event_buf, sizeof event_buf);
  const std::string_view key = decode_into(query_value(request.query, "key"), key_buf, sizeof key_buf);
  const hub::PublishResult result = worker_.hub().publish(topic, {request.body, event, key});
  switch (result.status) {
    case hub::HubStatus::ok: {
      char id_text[hub::kMaxIdText];
      const std::size_t id_length = worker_.hub().format_id(result.id, id_text);
      char json[1300];
      const int n = std::snprintf(json, sizeof json, "{\"topic\":\"%.*s\",\"id\":\"%.*s\",\"subscribers\":%zu}\n",
                                  static_cast<int>(topic.size()), topic.data(), static_cast<int>(id_length), id_text,
                                  result.subscribers);
      return respond({.status = 200,
                      .content_type = "application/json",
                      .body = std::string_view(json, static_cast<std::size_t>(n))});
    }
    case hub::HubStatus::bad_topic:
      return respond({.status = 400, .body = "bad topic name: use 1-128 of [A-Za-z0-9_.:-]\n"});
    case hub::HubStatus::bad_event:
      return respond({.status = 400, .body = "bad event name: at most 255 bytes, no CR, LF or NUL\n"});
    case hub::HubStatus::too_many_topics:
    case hub::HubStatus::too_many_subscribers:
      return respond({.status = 503, .body = "topic limit reached\n"});
    case hub::HubStatus::no_memory:
      return respond({.status = 503, .body = "out of buffer memory, retry\n", .extra_headers = "Retry-After: 1\r\n"});
    case hub::HubStatus::busy:
      return respond({.status = 503, .body = "subscribers are catching up, retry\n", .extra_headers = "Retry-After: 0\r\n"});
  }
}

// GET /pub/{topic} as a WebSocket: every message the client sends is
// published to {topic}; nothing is sent back but pongs and the close.
void Session::upgrade_publisher(const Request& request, std::string_view raw_topic) {
  if (worker_.config().ws.client_publish == 0) {
    keep_alive_ = false;
    return respond({.status = 403, .body = "publishing over WebSocket is switched off (ws.client_publish)\n"});
  }
  char topic_buf[1024];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  if (!hub::valid_topic_name(topic, worker_.hub().limits().max_topic_name)) {
    keep_alive_ = false;
    return respond({.status = 400, .body = "bad topic name: use 1-128 of [A-Za-z0-9_.:-]\n"});
  }
  upgrade(request, State::ws_publish, topic);
}

void Session::start_sse(const Request& request, std::string_view path_topic) {
  std::optional<conn::Policy> requested;
  if (const std::string_view name = query_value(request.query, "policy"); !name.empty()) {
    requested = conn::parse_policy(name);
    if (!requested || !worker_.config().policy.allows(*requested)) {
      return respond({.status = 400, .body = "policy not offered here\n"});
    }
  }
  // Browsers send Last-Event-ID only when they reconnect; a first
  // connection that wants to resume says ?lastEventId=. Ids count per topic
  // and do not name theirs, so only a one-topic stream can resume by id (a
  // client of several topics resumes each with /ws and `since`).
  char id_buf[hub::kMaxIdText * 2];
  std::string_view last_id = request.header("Last-Event-ID");
  if (last_id.empty()) last_id = decode_into(query_value(request.query, "lastEventId"), id_buf, sizeof id_buf);
  if (count_topics(request.query, path_topic) != 1) last_id = {};

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
  const std::size_t max_name = worker_.config().hub.max_topic_name;
  if (topics.size() > static_cast<std::size_t>(worker_.config().max_topics_per_connection) ||
      !std::all_of(topics.begin(), topics.end(), [&](const auto& t) { return hub::valid_topic_name(t, max_name); })) {
    return fail(400);
  }
  // The head goes first: a replay may fill the send budget and cut the
  // stream off, and the client must still see a well-formed stream end.
  buf::FrameRef head = make_sse_head(worker_.pool(), worker_.config().sse_retry_ms, cors_origin(request));
  if (!head || send_control(std::move(head)) != conn::EnqueueStatus::ok) {
    return close_now(conn::CloseReason::io_error);
  }
  state_ = State::sse;
  ++worker_.mutable_stats().streams;
  for (const std::string& topic : topics) {
    if (closing() || closed()) return;
    if (join(topic, requested, last_id) != JoinStatus::ok) return refuse_stream("topic limit reached");
  }
}

// Streams are for any origin unless ws.allowed_origins names some; then
// only those get the header a browser needs to read the stream.
std::string_view Session::cors_origin(const Request& request) const {
  const auto& allowed = worker_.allowed_origins();
  if (allowed.empty()) return "*";
  const std::string_view origin = request.header("Origin");
  return std::find(allowed.begin(), allowed.end(), origin) != allowed.end() ? origin : std::string_view();
}

// A stream whose head has gone out can only be ended, with a comment that
// says why.
void Session::refuse_stream(std::string_view why) {
  const std::string text = ": " + std::string(why) + "\n\n";
  buf::FrameRef comment = buf::make_frame(worker_.pool(), buf::Lane::control, text);
  if (comment) (void)send_control(std::move(comment));
  close_after_flush(conn::CloseReason::protocol);
}

void Session::on_closed(conn::CloseReason) {
  leave_all();
  if (ws_ && ws_->holding) worker_.drop_publisher(this);
  if (state_ != State::request) --worker_.mutable_stats().streams;
  worker_.retire(this);
}

void Session::begin_shutdown() {
  if (websocket()) ws_close(proto::ws::CloseCode::going_away, "server shutting down");
  close_after_flush(conn::CloseReason::shutdown);
}

void Session::check_timeouts(io::Loop::Clock::time_point now) {
  const Config& config = worker_.config();
  const auto since = [now](io::Loop::Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now - t).count();
  };
  if (closing()) {
    // A peer that neither reads our last bytes nor closes is not waited for.
    if (since(last_activity()) > config.linger_timeout_ms) close_now(conn::CloseReason::timeout);
    return;
  }
  if (websocket()) return check_liveness(now);
  if (state_ != State::request) return;
  if ((partial_ || !served_any_) && since(request_started_) > config.handshake_timeout_ms) return fail(408);
  if (!partial_ && served_any_ && since(last_activity()) > config.idle_timeout_ms) {
    close_after_flush(conn::CloseReason::timeout);
  }
}

}  // namespace sluice::server
