#include "sluice/server/http_session.hpp"

#include <algorithm>
#include <cstdio>

#include "sluice/proto/url.hpp"
#include "sluice/server/worker.hpp"

namespace sluice::server {

namespace {

using proto::http1::Method;
using proto::http1::ParseStatus;
using proto::http1::Request;

constexpr std::string_view kSsePrefix = "/sse";
constexpr std::string_view kPublishPrefix = "/pub/";

std::string_view query_value(std::string_view query, std::string_view wanted) {
  proto::url::QueryIterator it(query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key == wanted) return value;
  }
  return {};
}

// Percent-decodes a topic or event name into `out`; empty on malformed input.
std::string_view decode_into(std::string_view raw, char* out, std::size_t capacity) {
  const long n = proto::url::percent_decode(raw, out, capacity, true);
  return n < 0 ? std::string_view() : std::string_view(out, static_cast<std::size_t>(n));
}

}  // namespace

HttpSession::HttpSession(Worker& worker, int fd)
    : Connection(worker.loop(), fd, worker.config().connection),
      worker_(worker),
      parser_(worker.config().http),
      request_started_(worker.loop().now()) {}

HttpSession::~HttpSession() { leave_all(); }

void HttpSession::leave_all() {
  for (const std::string& topic : topics_) worker_.hub().unsubscribe(topic, this);
  topics_.clear();
  policies_.clear();
  drops_.clear();
}

void HttpSession::on_input(std::string& input) {
  if (state_ == State::sse) {
    input.clear();  // a stream's client has nothing more to say
    return;
  }
  if (!partial_) request_started_ = loop().now();
  while (!closed() && !closing() && state_ == State::request && !replies_full() && handle_one(input)) {
  }
  partial_ = !input.empty();
}

bool HttpSession::replies_full() const {
  // Pipelined requests are answered only while there is room for the reply;
  // the rest wait in the input buffer until the replies have been flushed.
  return out_queue().control_frames() + 1 >= out_queue().limits().max_control_frames;
}

void HttpSession::on_drained() {
  if (state_ == State::request && partial_) resume_input();
  if (drops_pending_) want_flush();  // a notice that waited for room goes now
}

bool HttpSession::handle_one(std::string& input) {
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
  input.erase(0, result.consumed);
  parser_.reset();
  request_started_ = loop().now();
  return true;
}

void HttpSession::handle_request(const Request& request) {
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
    if (request.method != Method::post) return method_not_allowed("POST");
    return publish(request, path.substr(kPublishPrefix.size()));
  }
  respond({.status = 404, .body = "no such resource\n"});
}

void HttpSession::method_not_allowed(std::string_view allow) {
  const std::string header = "Allow: " + std::string(allow) + "\r\n";
  respond({.status = 405, .body = "method not allowed\n", .extra_headers = header});
}

void HttpSession::respond(Response response) {
  response.keep_alive = keep_alive_;
  buf::FrameRef frame = make_response(worker_.pool(), response);
  if (!frame || send_control(std::move(frame)) != conn::EnqueueStatus::ok) {
    return close_now(conn::CloseReason::io_error);
  }
  if (!keep_alive_) close_after_flush(conn::CloseReason::peer);
}

void HttpSession::fail(int status) {
  keep_alive_ = false;
  char body[64];
  const int n = std::snprintf(body, sizeof body, "%d %s\n", status, proto::http1::status_reason(status));
  respond({.status = status, .body = std::string_view(body, static_cast<std::size_t>(n))});
}

void HttpSession::publish(const Request& request, std::string_view raw_topic) {
  char topic_buf[1024];
  char event_buf[256];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  char key_buf[256];
  const std::string_view event = decode_into(query_value(request.query, "event"), event_buf, sizeof event_buf);
  const std::string_view key = decode_into(query_value(request.query, "key"), key_buf, sizeof key_buf);
  const hub::PublishResult result = worker_.hub().publish(topic, {request.body, event, key});
  switch (result.status) {
    case hub::HubStatus::ok: {
      char json[1300];
      const int n = std::snprintf(json, sizeof json, "{\"topic\":\"%.*s\",\"id\":\"%llu\",\"subscribers\":%zu}\n",
                                  static_cast<int>(topic.size()), topic.data(),
                                  static_cast<unsigned long long>(result.id), result.subscribers);
      return respond({.status = 200,
                      .content_type = "application/json",
                      .body = std::string_view(json, static_cast<std::size_t>(n))});
    }
    case hub::HubStatus::bad_topic:
      return respond({.status = 400, .body = "bad topic name: use 1-128 of [A-Za-z0-9_.:-]\n"});
    case hub::HubStatus::bad_event:
      return respond({.status = 400, .body = "bad event name: no CR or LF\n"});
    case hub::HubStatus::too_many_topics:
    case hub::HubStatus::too_many_subscribers:
      return respond({.status = 503, .body = "topic limit reached\n"});
    case hub::HubStatus::no_memory:
      return respond({.status = 503, .body = "out of buffer memory, retry\n", .extra_headers = "Retry-After: 1\r\n"});
  }
}

void HttpSession::start_sse(const Request& request, std::string_view path_topic) {
  std::optional<conn::Policy> requested;
  if (const std::string_view name = query_value(request.query, "policy"); !name.empty()) {
    requested = conn::parse_policy(name);
    if (!requested || !worker_.config().policy.allows(*requested)) {
      return respond({.status = 400, .body = "policy not offered here\n"});
    }
  }
  bool ok = path_topic.empty() || join(path_topic, requested);
  proto::url::QueryIterator it(request.query);
  std::string_view key;
  std::string_view value;
  while (ok && it.next(key, value)) {
    if (key == "topic") ok = join(value, requested);
  }
  if (!ok) return;
  if (topics_.empty()) return respond({.status = 400, .body = "name a topic: /sse/{topic} or ?topic=\n"});
  buf::FrameRef head = make_sse_head(worker_.pool(), worker_.config().sse_retry_ms);
  if (!head || send_control(std::move(head)) != conn::EnqueueStatus::ok) {
    return close_now(conn::CloseReason::io_error);
  }
  state_ = State::sse;
  ++worker_.mutable_stats().sse_streams;
}

bool HttpSession::join(std::string_view raw_topic, std::optional<conn::Policy> requested) {
  char topic_buf[1024];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  if (std::find(topics_.begin(), topics_.end(), topic) != topics_.end()) return true;
  if (topics_.size() >= static_cast<std::size_t>(worker_.config().max_topics_per_connection)) {
    fail(400);
    return false;
  }
  const auto cookie = static_cast<std::uint32_t>(topics_.size());
  switch (worker_.hub().subscribe(topic, this, cookie)) {
    case hub::HubStatus::ok:
      topics_.emplace_back(topic);
      policies_.push_back(requested.value_or(worker_.config().policy.for_topic(topic)));
      drops_.emplace_back();
      return true;
    case hub::HubStatus::too_many_topics:
    case hub::HubStatus::too_many_subscribers:
      fail(503);
      return false;
    default:
      fail(400);
      return false;
  }
}

void HttpSession::deliver(const hub::Delivery& delivery) {
  const conn::Policy policy = policies_[delivery.cookie];
  const conn::FrameTag tag{delivery.id, delivery.cookie, delivery.key};
  switch (conn::enqueue_with_policy(mutable_out_queue(), policy, delivery.sse, tag, drops_.data())) {
    case conn::Verdict::queued:
    case conn::Verdict::dropped:
      // Only the lossy policies record drops, in any of this stream's topics.
      drops_pending_ = drops_pending_ || policy != conn::Policy::fifo;
      return want_flush();
    case conn::Verdict::cut_off:
      ++worker_.mutable_stats().slow_disconnects;
      if (policy == conn::Policy::disconnect) return close_now(conn::CloseReason::slow_consumer);
      return cut_off();
  }
}

// fifo past its budget: nothing is lost yet, so the subscriber gets what is
// queued, a longer `retry:` to spread the reconnect, and the end of the
// stream; it resumes from its Last-Event-ID.
void HttpSession::cut_off() {
  leave_all();
  char text[96];
  const int n = std::snprintf(text, sizeof text, ": slow consumer, resume from the last id\nretry: %lld\n\n",
                              static_cast<long long>(worker_.config().policy.slow_retry_ms));
  buf::FrameRef hint = buf::make_frame(worker_.pool(), buf::Lane::control, std::string_view(text, n));
  if (hint) (void)send_control(std::move(hint));
  close_after_flush(conn::CloseReason::slow_consumer);
}

void HttpSession::before_flush() {
  if (drops_pending_) drops_pending_ = !queue_drop_notices();
}

// One `sluice-dropped` event per topic that lost events since the last
// notice, all in one control frame. Returns false when it must wait (the
// records are kept): while a control frame is still waiting, losses keep
// adding up into one notice instead of one notice per lost event.
bool HttpSession::queue_drop_notices() {
  if (out_queue().control_frames() > 0) return false;
  buf::FrameBuilder builder(worker_.pool(), buf::Lane::control);
  std::uint64_t dropped = 0;
  for (std::size_t i = 0; i < drops_.size(); ++i) {
    const conn::DropRecord& d = drops_[i];
    if (d.empty()) continue;
    char text[1400];
    const int n = std::snprintf(text, sizeof text,
                                "event: sluice-dropped\ndata: {\"topic\":\"%s\",\"dropped\":%llu,"
                                "\"first_id\":\"%llu\",\"last_id\":\"%llu\",\"policy\":\"%.*s\"}\n\n",
                                topics_[i].c_str(), static_cast<unsigned long long>(d.count),
                                static_cast<unsigned long long>(d.first_id), static_cast<unsigned long long>(d.last_id),
                                static_cast<int>(conn::policy_name(policies_[i]).size()),
                                conn::policy_name(policies_[i]).data());
    builder.append(text, static_cast<std::size_t>(n));
    dropped += d.count;
  }
  if (dropped == 0) return true;
  buf::FrameRef notice = builder.finish();
  if (!notice || send_control(std::move(notice)) != conn::EnqueueStatus::ok) return false;
  worker_.mutable_stats().events_dropped += dropped;
  for (conn::DropRecord& d : drops_) d = {};
  return true;
}

void HttpSession::on_closed(conn::CloseReason) {
  leave_all();
  if (state_ == State::sse) --worker_.mutable_stats().sse_streams;
  worker_.retire(this);
}

void HttpSession::check_timeouts(io::Loop::Clock::time_point now) {
  const Config& config = worker_.config();
  const auto since = [now](io::Loop::Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now - t).count();
  };
  if (closing()) {
    // A peer that neither reads our last bytes nor closes is not waited for.
    if (since(last_activity()) > config.linger_timeout_ms) close_now(conn::CloseReason::timeout);
    return;
  }
  if (state_ != State::request) return;
  if ((partial_ || !served_any_) && since(request_started_) > config.handshake_timeout_ms) return fail(408);
  if (!partial_ && served_any_ && since(last_activity()) > config.idle_timeout_ms) {
    close_after_flush(conn::CloseReason::timeout);
  }
}

}  // namespace sluice::server
