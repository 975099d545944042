// SseSession over HTTP/2: one GET stream on a connection of its own. The
// response head is checked as over HTTP/1.1; DATA frames feed the same
// EventSource parser. Window updates and acknowledgements the session owes
// go out after each read. Body bytes that come with the head wait in
// head_ until the head is accepted, so a refused answer never reaches the
// parser.
#include <nghttp2/nghttp2.h>

#include <string>
#include <utility>
#include <vector>

#include "head_reader.hpp"
#include "sse_session.hpp"

namespace sluice::client::detail {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds left_until(Clock::time_point deadline) {
  return std::max(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()), milliseconds(0));
}

}  // namespace

bool SseSession::use_h2(const Link& link) const {
  if (http2_ == Http2::off) return false;
  return link.speaks_h2() || (http2_ == Http2::prior_knowledge && !url_.tls);
}

ClientError SseSession::open_h2(Link& link, Driver& driver) {
  const ClientOptions& options = driver.options();
  H2ClientStream::Body& body = *this;
  h2_ = std::make_unique<H2ClientStream>(body);
  h2_open_ = false;
  body_error_ = {};
  head_.clear();
  const std::string id = last_id();
  std::vector<std::pair<std::string_view, std::string_view>> headers = {{"accept", "text/event-stream"},
                                                                         {"cache-control", "no-cache"}};
  if (!id.empty()) headers.emplace_back("last-event-id", id);
  const std::string authorization = "Bearer " + token_;
  if (!token_.empty()) headers.emplace_back("authorization", authorization);
  if (!h2_->open(url_, headers)) return {.kind = ErrorKind::resources, .message = "HTTP/2: no memory for a session"};
  if (const IoResult r = link.write_all(h2_->output(), options.connect_timeout); r != IoResult::ok) {
    return io_result_error(r, link, "while sending the request");
  }
  const auto deadline = Clock::now() + options.connect_timeout;
  while (!h2_->head_complete()) {
    if (h2_->ended()) return h2_ended();
    std::size_t got = 0;
    const IoResult r = link.read(chunk_, got, left_until(deadline));
    if (r != IoResult::ok) return io_result_error(r, link, "before the response head");
    driver.add_bytes(got);
    if (ClientError e = feed_h2(link, {chunk_.data(), got}); e.kind != ErrorKind::none) return e;
  }
  const H2ClientStream::Head& answer = h2_->head();
  ResponseHead head;
  head.status = answer.status;
  head.content_type = answer.content_type;
  head.retry_after = answer.retry_after;
  if (ClientError e = check_head(head, driver); e.kind != ErrorKind::none) return e;
  parser_.reset();
  driver.opened();
  h2_open_ = true;
  return feed(head_);
}

ClientError SseSession::pump_h2(Link& link, Driver& driver) {
  const milliseconds idle =
      driver.options().idle_timeout.count() > 0 ? driver.options().idle_timeout : milliseconds(-1);
  while (true) {
    if (h2_->ended()) return h2_ended();
    std::size_t got = 0;
    const IoResult r = link.read(chunk_, got, idle);
    if (r != IoResult::ok) return io_result_error(r, link, "while streaming");
    driver.add_bytes(got);
    if (ClientError e = feed_h2(link, {chunk_.data(), got}); e.kind != ErrorKind::none) return e;
  }
}

ClientError SseSession::feed_h2(Link& link, std::string_view bytes) {
  switch (h2_->feed(bytes)) {
    case H2ClientStream::Feed::ok:
      break;
    case H2ClientStream::Feed::stopped:
      return body_error_;
    case H2ClientStream::Feed::too_big:
      return {.kind = ErrorKind::bad_response,
              .message = "the response head is longer than " + std::to_string(kMaxHeadBytes) + " bytes"};
    case H2ClientStream::Feed::broken:
      return {.kind = ErrorKind::protocol, .message = h2_->error()};
  }
  const std::string_view owed = h2_->output();
  if (owed.empty()) return {};
  if (const IoResult r = link.write_all(owed, driver_->options().connect_timeout); r != IoResult::ok) {
    return io_result_error(r, link, "while answering the server");
  }
  return {};
}

ClientError SseSession::h2_ended() const {
  if (h2_->goaway_code() == NGHTTP2_HTTP_1_1_REQUIRED) {
    // Asking again would be told the same.
    return {.kind = ErrorKind::bad_response,
            .message = "the server does not take HTTP/2 here (GOAWAY HTTP_1_1_REQUIRED): connect over HTTP/1.1"};
  }
  if (h2_->goaway_code() && *h2_->goaway_code() != 0) {
    return {.kind = ErrorKind::closed,
            .message = "the server ended the connection (GOAWAY, HTTP/2 error " +
                       std::to_string(*h2_->goaway_code()) + ")"};
  }
  if (h2_->error_code() == 0) return {.kind = ErrorKind::closed, .message = "the server ended the stream"};
  return {.kind = ErrorKind::closed,
          .message = "the server reset the stream (HTTP/2 error " + std::to_string(h2_->error_code()) + ")"};
}

bool SseSession::on_body(std::string_view bytes) {
  if (!h2_open_) {
    if (head_.size() + bytes.size() > kMaxHeadBytes) {
      body_error_ = {.kind = ErrorKind::bad_response, .message = "a response body before its head was accepted"};
      return false;
    }
    head_.append(bytes);
    return true;
  }
  body_error_ = feed(bytes);
  return body_error_.kind == ErrorKind::none;
}

}  // namespace sluice::client::detail
