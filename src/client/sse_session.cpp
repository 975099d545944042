#include "sse_session.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "bearer_token.hpp"
#include "head_reader.hpp"
#include "notice.hpp"
#include "proto/sse_parser.hpp"
#include "proto/url.hpp"

namespace sluice::client::detail {

namespace {

using std::chrono::milliseconds;

constexpr std::size_t kChunkBytes = std::size_t{64} << 10;
constexpr std::string_view kStreamPrefix = "/sse/";

std::string percent_decoded(std::string_view raw) {
  std::string out(raw.size(), '\0');
  const long n = proto::url::percent_decode(raw, out.data(), out.size(), true);
  out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return out;
}

// A line holds a field's name and its value: an event's data of
// max_event_bytes comes as "data: " and that many bytes. An id or event
// name is never cut below 4 KiB, whatever the data's limit.
std::size_t line_limit(std::size_t max_event_bytes) {
  constexpr std::size_t kShortestValueLimit = 4096;
  return std::max(max_event_bytes, kShortestValueLimit) + proto::sse::kFieldNameRoom;
}

milliseconds idle_limit(const ClientOptions& options) {
  return options.idle_timeout.count() > 0 ? options.idle_timeout : milliseconds(-1);
}

}  // namespace

std::string single_topic(const Url& url) {
  std::string_view found;
  int count = 0;
  if (const std::string_view path = url.path(); path.starts_with(kStreamPrefix)) {
    found = path.substr(kStreamPrefix.size());
    ++count;
  }
  proto::url::QueryIterator it(url.query());
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key != "topic") continue;
    found = value;
    ++count;
  }
  return count == 1 ? percent_decoded(found) : std::string();
}

SseSession::SseSession(const Url& url, std::string_view last_id, const ClientOptions& options,
                       transport::TlsContext tls)
    : url_(url),
      topic_(single_topic(url)),
      tls_(std::move(tls)),
      http2_(options.http2),
      parser_({.max_line = line_limit(options.max_event_bytes), .max_data = options.max_event_bytes}),
      chunk_(kChunkBytes),
      resume_id_(last_id) {
  last_words_.reserve(kLastWordsBytes);  // a comment then costs no allocation
}

std::string SseSession::last_id() const {
  std::lock_guard lock(id_mutex_);
  return resume_id_;
}

ClientError SseSession::run(Driver& driver) {
  driver_ = &driver;
  cancelled_ = false;
  const ClientOptions& options = driver.options();
  token_ = options.token ? options.token() : std::string();
  if (!detail::fits_a_header(token_)) return detail::unfit_token();
  Link link(&driver.wake(), &driver.interrupt());
  last_words_.clear();
  ClientError error = link.connect(url_, options.connect_timeout, options.receive_buffer, &tls_);
  if (error.kind == ErrorKind::none) error = use_h2(link) ? open_h2(link, driver) : open_stream(link, driver);
  if (error.kind == ErrorKind::none) error = h2_ ? pump_h2(link, driver) : pump(link, driver);
  // Why the server ended the stream, when it said so in a comment after its
  // last event (a token expired, the server going away).
  if (error.kind == ErrorKind::closed && !last_words_.empty()) {
    error.message += " (its last words: ";
    append_server_words(error.message, last_words_);
    error.message += ")";
  }
  h2_.reset();
  driver_ = nullptr;
  return error;
}

void SseSession::build_request() {
  request_.assign("GET ").append(url_.target).append(" HTTP/1.1\r\nHost: ").append(url_.authority());
  request_.append("\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n");
  if (!token_.empty()) request_.append("Authorization: Bearer ").append(token_).append("\r\n");
  const std::string id = last_id();
  if (!id.empty()) request_.append("Last-Event-ID: ").append(id).append("\r\n");
  request_.append("\r\n");
}

ClientError SseSession::open_stream(Link& link, Driver& driver) {
  const ClientOptions& options = driver.options();
  build_request();
  if (const IoResult r = link.write_all(request_, options.connect_timeout); r != IoResult::ok) {
    return io_result_error(r, link, "while sending the request");
  }
  ResponseHead head;
  std::size_t bytes = 0;
  ClientError error = read_head(link, head_, chunk_, options.connect_timeout, head, bytes);
  driver.add_bytes(bytes);
  if (error.kind == ErrorKind::none) error = check_head(head, driver);
  if (error.kind != ErrorKind::none) return error;
  head_.erase(0, head.size);
  parser_.reset();
  driver.opened();
  return feed(head_);
}

ClientError SseSession::check_head(const ResponseHead& head, Driver& driver) const {
  if (head.status != 200) {
    driver.set_retry_after(retry_after_delay(head.retry_after));
    const std::string_view body = head.transfer_encoding.empty() ? std::string_view(head_).substr(head.size) : "";
    return status_error(head.status, "GET " + url_.target, body);
  }
  if (!media_type_is(head.content_type, "text/event-stream")) {
    std::string message = "GET " + url_.target + ": the answer is not an event stream (Content-Type: ";
    append_server_words(message, head.content_type);
    return {.kind = ErrorKind::bad_response, .message = message + ")"};
  }
  if (!head.transfer_encoding.empty()) {
    return {.kind = ErrorKind::bad_response, .message = "a stream with a Transfer-Encoding is not supported"};
  }
  return {};
}

ClientError SseSession::pump(Link& link, Driver& driver) {
  const milliseconds idle = idle_limit(driver.options());
  while (true) {
    std::size_t got = 0;
    const IoResult r = link.read(chunk_, got, idle);
    if (r != IoResult::ok) return io_result_error(r, link, "while streaming");
    driver.add_bytes(got);
    if (ClientError e = feed(std::string_view(chunk_.data(), got)); e.kind != ErrorKind::none) return e;
  }
}

ClientError SseSession::feed(std::string_view bytes) {
  const proto::sse::ParseStatus status = parser_.feed(bytes, *this);
  if (cancelled_) return {.kind = ErrorKind::aborted, .message = "the client is stopping"};
  if (status == proto::sse::ParseStatus::ok) return {};
  const char* what = status == proto::sse::ParseStatus::line_too_long ? "a line" : "an event's data";
  return {.kind = ErrorKind::protocol,
          .message = std::string("the stream broke off: ") + what + " passed max_event_bytes (" +
                     std::to_string(driver_->options().max_event_bytes) + ")"};
}

void SseSession::on_event(const proto::sse::ReceivedEvent& event) {
  if (cancelled_) return;
  Event& e = scratch_;
  e.kind = kind_of_sse_event(event.type);
  e.topic.assign(topic_);
  e.id.assign(event.id);
  e.type.assign(event.type);
  e.data.assign(event.data);
  e.binary = false;
  e.dropped = 0;
  e.req = 0;
  e.ok = true;
  last_words_.clear();
  if (e.kind != EventKind::message) read_notice(notices_, e);
  // The resume point moves before the hand-over, so that last_id() already
  // names an event the application may be reading; it moves back if the
  // hand-over is refused.
  const bool remember = e.kind == EventKind::message && !event.id.empty();
  if (remember) set_resume_id(event.id);
  if (driver_->inbox().push(e)) return;
  cancelled_ = true;
  if (remember) {
    std::lock_guard lock(id_mutex_);
    resume_id_.swap(prior_id_);
  }
}

void SseSession::set_resume_id(std::string_view id) {
  std::lock_guard lock(id_mutex_);
  prior_id_.swap(resume_id_);
  resume_id_.assign(id);
}

void SseSession::on_comment(std::string_view text) {
  if (!text.empty()) last_words_.assign(text.substr(0, kLastWordsBytes));
}

void SseSession::on_retry(std::uint64_t retry_ms) {
  const auto capped = std::min<std::uint64_t>(retry_ms, std::numeric_limits<std::int32_t>::max());
  driver_->set_retry(milliseconds(static_cast<milliseconds::rep>(capped)));
}

}  // namespace sluice::client::detail
