#include "sluice/client/ws_client.hpp"

#include <mutex>

#include "driver.hpp"
#include "proto/utf8.hpp"
#include "ws_protocol.hpp"
#include "ws_requests.hpp"
#include "tls_setup.hpp"
#include "ws_session.hpp"

namespace sluice::client {

struct WsClient::Impl {
  explicit Impl(const ClientOptions& options)
      : driver(options), requests(kMaxPendingRequests, options.queue_bytes) {}
  // The thread uses the session: it is joined before the session goes.
  ~Impl() { driver.stop(); }

  Submit submit(detail::WsRequest&& request) {
    std::lock_guard lock(mutex);
    if (session && !session->json_protocol()) return {SubmitStatus::refused, 0};
    const ClientState now = driver.state();
    if (session && (now == ClientState::failed || now == ClientState::stopped)) return {SubmitStatus::stopped, 0};
    const Submit submitted = requests.push(std::move(request));
    if (submitted.status == SubmitStatus::queued) driver.wake().signal();
    return submitted;
  }

  detail::Driver driver;
  detail::WsRequests requests;
  mutable std::mutex mutex;  // guards `session`, set once by start()
  std::unique_ptr<detail::WsSession> session;
};

WsClient::WsClient(const ClientOptions& options) : impl_(std::make_unique<Impl>(options)) {}

WsClient::~WsClient() = default;

ClientError WsClient::start(std::string_view url) {
  Url parsed;
  std::string why;
  if (!parse_url(url, parsed, why)) return {.kind = ErrorKind::bad_url, .fatal = true, .message = why};
  if (parsed.scheme != Scheme::ws) {
    return {.kind = ErrorKind::bad_url, .fatal = true, .message = "a WebSocket needs a ws:// or wss:// URL"};
  }
  // WebSocket runs over HTTP/1.1 only (its HTTP/2 form, RFC 8441, is the
  // server's to offer; this client does not use it).
  transport::TlsContext tls;
  if (ClientError e = detail::make_tls_context(parsed, impl_->driver.options().tls, false, tls);
      e.kind != ErrorKind::none) {
    return e;
  }
  std::lock_guard lock(impl_->mutex);
  if (impl_->session) return {.kind = ErrorKind::resources, .fatal = true, .message = "the client was already started"};
  impl_->session = std::make_unique<detail::WsSession>(parsed, impl_->requests, std::move(tls));
  return impl_->driver.start(*impl_->session);
}

Submit WsClient::subscribe(std::string_view topic, const SubscribeOptions& options) {
  if (!detail::is_valid_topic(topic)) return {SubmitStatus::refused, 0};
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->session && impl_->session->topics().topic_count() >= kMaxTopics) return {SubmitStatus::refused, 0};
  }
  return impl_->submit({.op = detail::WsRequest::Op::subscribe,
                        .topic = std::string(topic),
                        .since = options.since,
                        .policy = options.policy});
}

Submit WsClient::unsubscribe(std::string_view topic) {
  if (!detail::is_valid_topic(topic)) return {SubmitStatus::refused, 0};
  return impl_->submit({.op = detail::WsRequest::Op::unsubscribe, .topic = std::string(topic)});
}

Submit WsClient::publish(std::string_view topic, std::string_view data, const PublishOptions& options) {
  // The JSON protocol carries data as a JSON string, which must be UTF-8.
  if (!detail::is_valid_topic(topic) || !proto::ws::is_valid_utf8(data)) return {SubmitStatus::refused, 0};
  return impl_->submit({.op = detail::WsRequest::Op::publish,
                        .topic = std::string(topic),
                        .data = std::string(data),
                        .event = std::string(options.event),
                        .key = std::string(options.key)});
}

NextStatus WsClient::next(Event& out, std::chrono::milliseconds wait) { return impl_->driver.inbox().pop(out, wait); }

void WsClient::reconnect() { impl_->driver.reconnect(); }

void WsClient::stop() {
  impl_->requests.close();
  impl_->driver.stop();
}

ClientState WsClient::state() const { return impl_->driver.state(); }

ClientError WsClient::error() const { return impl_->driver.last_error(); }

std::string WsClient::last_id(std::string_view topic) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->session ? impl_->session->topics().last_id(topic) : std::string();
}

ClientStats WsClient::stats() const {
  ClientStats stats;
  impl_->driver.fill_stats(stats);
  return stats;
}

}  // namespace sluice::client
