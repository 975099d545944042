#include "sluice/client/sse_client.hpp"

#include <mutex>
#include <utility>

#include "driver.hpp"
#include "sse_session.hpp"
#include "tls_setup.hpp"

namespace sluice::client {

struct SseClient::Impl {
  explicit Impl(const ClientOptions& options) : driver(options) {}
  // The thread uses the session: it is joined before the session goes.
  ~Impl() { driver.stop(); }

  detail::Driver driver;
  mutable std::mutex mutex;  // guards `session`, set once by start()
  std::unique_ptr<detail::SseSession> session;
};

SseClient::SseClient(const ClientOptions& options) : impl_(std::make_unique<Impl>(options)) {}

SseClient::~SseClient() = default;

ClientError SseClient::start(std::string_view url, std::string_view last_id) {
  Url parsed;
  std::string why;
  if (!parse_url(url, parsed, why)) return {.kind = ErrorKind::bad_url, .fatal = true, .message = why};
  if (parsed.scheme != Scheme::http) {
    return {.kind = ErrorKind::bad_url, .fatal = true, .message = "an SSE stream needs an http:// or https:// URL"};
  }
  if (last_id.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
    return {.kind = ErrorKind::bad_url, .fatal = true, .message = "a last id may not hold CR, LF or NUL"};
  }
  const ClientOptions& options = impl_->driver.options();
  transport::TlsContext tls;
  if (ClientError e = detail::make_tls_context(parsed, options.tls, options.http2 != Http2::off, tls);
      e.kind != ErrorKind::none) {
    return e;
  }
  std::lock_guard lock(impl_->mutex);
  if (impl_->session) return {.kind = ErrorKind::resources, .fatal = true, .message = "the client was already started"};
  impl_->session = std::make_unique<detail::SseSession>(parsed, last_id, options, std::move(tls));
  return impl_->driver.start(*impl_->session);
}

NextStatus SseClient::next(Event& out, std::chrono::milliseconds wait) { return impl_->driver.inbox().pop(out, wait); }

void SseClient::reconnect() { impl_->driver.reconnect(); }

void SseClient::stop() { impl_->driver.stop(); }

ClientState SseClient::state() const { return impl_->driver.state(); }

ClientError SseClient::error() const { return impl_->driver.last_error(); }

std::string SseClient::last_id() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->session ? impl_->session->last_id() : std::string();
}

ClientStats SseClient::stats() const {
  ClientStats stats;
  impl_->driver.fill_stats(stats);
  return stats;
}

}  // namespace sluice::client
