#include "sluice/client/publisher.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <vector>

#include "head_reader.hpp"
#include "link.hpp"
#include "bearer_token.hpp"
#include "proto/json_reader.hpp"
#include "tls_setup.hpp"

namespace sluice::client {

namespace {

using detail::IoResult;

constexpr std::size_t kChunkBytes = std::size_t{16} << 10;
constexpr std::size_t kMaxReplyBody = std::size_t{64} << 10;

bool parse_length(std::string_view text, std::size_t& length) {
  length = 0;
  if (text.empty() || text.size() > 12) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    length = length * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

// The reply to a publish, {"topic":"news","id":"mx3d1k2a:1","subscribers":1}:
// its id (required) and subscriber count (0 when absent or not a count).
bool read_reply_body(std::string_view body, std::vector<char>& scratch, std::string& id,
                     std::uint64_t& subscribers) {
  scratch.resize(body.size());
  proto::json::ObjectReader reader(body, {.max_string_bytes = body.size()}, scratch);
  bool named = false;
  subscribers = 0;
  std::string_view name;
  proto::json::Value value;
  if (!reader.open()) return false;
  while (reader.next_member(name)) {
    if (name != "id" && name != "subscribers") continue;
    if (!reader.read_value(value, true)) return false;
    if (name == "id" && value.kind == proto::json::ValueKind::string) {
      id.assign(value.text);
      named = true;
    } else if (name == "subscribers") {
      const char* const last = value.source.data() + value.source.size();
      const auto [end, ec] = std::from_chars(value.source.data(), last, subscribers);
      if (ec != std::errc() || end != last) subscribers = 0;
    }
  }
  return reader.finish() && named;
}

}  // namespace

struct Publisher::Impl {
  explicit Impl(const PublisherOptions& o) : options(o), link(nullptr, o.interrupt), chunk(kChunkBytes) {}

  PublishResult exchange(std::string_view target, std::string_view data, bool& nothing_back);
  ClientError read_body(const detail::ResponseHead& head, std::chrono::steady_clock::time_point deadline);
  void read_reply(const detail::ResponseHead& head, std::string_view target, PublishResult& result);

  PublisherOptions options;
  Url url;
  bool opened = false;
  detail::Link link;
  transport::TlsContext tls;  // https://
  std::string request;
  std::string buffer;  // the reply: head, then body bytes
  std::vector<char> chunk;
  std::string body;
  std::vector<char> json_scratch;  // decoded strings of the reply
};

Publisher::Publisher(const PublisherOptions& options) : impl_(std::make_unique<Impl>(options)) {}

Publisher::~Publisher() = default;

ClientError Publisher::open(std::string_view url) {
  // The scheme first: a publisher told that ws:// would do (parse_url's
  // answer for any URL) would only be refused again. Only a scheme-shaped
  // start counts (a "://" further on, in a query, is parse_url's to judge).
  if (const std::string_view scheme = url_scheme(url); !scheme.empty()) {
    if (!scheme_is(scheme, "http") && !scheme_is(scheme, "https")) {
      return {.kind = ErrorKind::bad_url,
              .fatal = true,
              .message = "publishing needs an http:// or https:// URL, not " + shown_scheme(scheme) + "://"};
    }
  }
  std::string why;
  if (!parse_url(url, impl_->url, why)) return {.kind = ErrorKind::bad_url, .fatal = true, .message = why};
  impl_->link.close();
  if (ClientError e = detail::make_tls_context(impl_->url, impl_->options.tls, false, impl_->tls);
      e.kind != ErrorKind::none) {
    return e;
  }
  impl_->opened = true;
  return {};
}

void Publisher::close() { impl_->link.close(); }

PublishResult Publisher::publish(std::string_view data) { return publish_to(impl_->url.target, data); }

PublishResult Publisher::publish_to(std::string_view target, std::string_view data) {
  if (!impl_->opened) return {.error = {.kind = ErrorKind::bad_url, .fatal = true, .message = "open() a URL first"}};
  // A kept-alive connection the server closed while idle answers nothing:
  // that one, and only that one, is worth a second try.
  const bool reused = impl_->link.is_open();
  bool nothing_back = false;
  PublishResult result = impl_->exchange(target, data, nothing_back);
  if (!(reused && nothing_back)) return result;
  impl_->link.close();
  return impl_->exchange(target, data, nothing_back);
}

PublishResult Publisher::Impl::exchange(std::string_view target, std::string_view data, bool& nothing_back) {
  PublishResult result;
  nothing_back = false;
  const std::string token = options.token ? options.token() : std::string();
  if (!detail::fits_a_header(token)) {
    result.error = detail::unfit_token();
    return result;
  }
  if (!link.is_open()) {
    result.error = link.connect(url, options.timeout, 0, &tls);
    if (result.error.kind != ErrorKind::none) return result;
  }
  request.assign("POST ").append(target).append(" HTTP/1.1\r\nHost: ").append(url.authority());
  if (!token.empty()) request.append("\r\nAuthorization: Bearer ").append(token);
  request.append("\r\nContent-Type: application/octet-stream\r\nContent-Length: ").append(std::to_string(data.size()));
  request.append("\r\n\r\n").append(data);
  detail::ResponseHead head;
  std::size_t bytes = 0;
  // The whole exchange within options.timeout: a server that sends its
  // reply a byte at a time does not keep the publisher for each read's.
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  if (const IoResult r = link.write_all(request, options.timeout); r != IoResult::ok) {
    result.error = detail::io_result_error(r, link, "while sending the request");
  } else {
    result.error = detail::read_head(link, buffer, chunk, options.timeout, head, bytes);
  }
  if (result.error.kind != ErrorKind::none) {
    nothing_back = bytes == 0;
    link.close();
    return result;
  }
  result.error = read_body(head, deadline);
  if (result.error.kind == ErrorKind::none) read_reply(head, target, result);
  if (result.error.kind != ErrorKind::none || detail::list_has_token(head.connection, "close")) link.close();
  return result;
}

ClientError Publisher::Impl::read_body(const detail::ResponseHead& head,
                                       std::chrono::steady_clock::time_point deadline) {
  std::size_t length = 0;
  if (!parse_length(head.content_length, length) || length > kMaxReplyBody) {
    return {.kind = ErrorKind::bad_response, .message = "a reply without a usable Content-Length"};
  }
  body.assign(buffer, head.size);
  while (body.size() < length) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::size_t got = 0;
    const IoResult r = link.read(chunk, got, std::max(left, std::chrono::milliseconds(0)));
    if (r != IoResult::ok) return detail::io_result_error(r, link, "in the middle of the reply");
    body.append(chunk.data(), got);
  }
  if (body.size() > length) return {.kind = ErrorKind::bad_response, .message = "more bytes than the reply's length"};
  return {};
}

void Publisher::Impl::read_reply(const detail::ResponseHead& head, std::string_view target, PublishResult& result) {
  result.status = head.status;
  if (head.status != 200) {
    result.retry_after = detail::retry_after_delay(head.retry_after);
    result.error = detail::status_error(head.status, "POST " + std::string(target), body);
    return;
  }
  if (!read_reply_body(body, json_scratch, result.id, result.subscribers)) {
    result.id.clear();
    result.error = {.kind = ErrorKind::bad_response, .message = "the reply to a publish names no id"};
  }
}

}  // namespace sluice::client
