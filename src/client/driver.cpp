#include "driver.hpp"

#include <poll.h>

#include <system_error>

namespace sluice::client::detail {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

bool retryable_status(int status) { return status == 408 || status == 429 || status >= 500; }

}  // namespace

Driver::Driver(const ClientOptions& options)
    : options_(options),
      inbox_(options),
      backoff_(options.reconnect.initial_delay, options.reconnect.max_delay) {}

Driver::~Driver() { stop(); }

ClientError Driver::start(Session& session) {
  std::lock_guard lock(thread_mutex_);
  if (thread_.joinable() || stopping()) {
    return {.kind = ErrorKind::resources, .fatal = true, .message = "the client was already started"};
  }
  if (!wake_.valid()) return {.kind = ErrorKind::resources, .fatal = true, .message = "no eventfd for the client"};
  state_.store(ClientState::connecting, std::memory_order_release);
  try {
    thread_ = std::thread([this, &session] { run(session); });
  } catch (const std::system_error& e) {
    state_.store(ClientState::failed, std::memory_order_release);
    return {.kind = ErrorKind::resources, .fatal = true, .message = std::string("no thread: ") + e.what()};
  }
  return {};
}

void Driver::stop() {
  stopping_.store(true, std::memory_order_release);
  interrupt_.store(true, std::memory_order_release);
  inbox_.cancel();
  wake_.signal();
  std::lock_guard lock(thread_mutex_);
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void Driver::reconnect() {
  interrupt_.store(true, std::memory_order_release);
  wake_.signal();
}

ClientError Driver::last_error() const {
  std::lock_guard lock(error_mutex_);
  return last_error_;
}

void Driver::fill_stats(ClientStats& stats) const {
  inbox_.fill_stats(stats);
  stats.connects = connects_.load(std::memory_order_relaxed);
  stats.bytes_read = bytes_read_.load(std::memory_order_relaxed);
}

void Driver::opened() {
  opened_ = true;
  opened_at_ = Clock::now();
  pushed_at_open_ = inbox_.pushed();
  failed_attempts_ = 0;
  connects_.fetch_add(1, std::memory_order_relaxed);
  report(ClientState::open, nullptr, milliseconds(0));
}

void Driver::set_retry(milliseconds base) { backoff_.set_base(base); }

void Driver::set_retry_after(milliseconds at_least) { retry_after_ = at_least; }

bool Driver::is_fatal(const ClientError& error) const {
  switch (error.kind) {
    case ErrorKind::bad_url:
    case ErrorKind::bad_response:
    case ErrorKind::resources:
    case ErrorKind::tls:
    case ErrorKind::bad_token:
      return true;
    case ErrorKind::http_status:
      if (!retryable_status(error.http_status)) return true;
      break;
    case ErrorKind::closed:
      // A WebSocket refused for its credentials is told with a close (4401,
      // 4403: the 401 and 403 a browser's page could not read). Closed as
      // soon as it opened, that is the refusal a status would have been, and
      // as final; one that came after the stream lasted (a token expiring)
      // is tried again with the token of that moment.
      if ((error.close_code == 4401 || error.close_code == 4403) && !stream_proved_itself()) return true;
      break;
    default:
      break;
  }
  const std::uint32_t limit = options_.reconnect.max_attempts;
  return limit != 0 && failed_attempts_ >= limit;
}

void Driver::run(Session& session) {
  while (!stopping()) {
    report(ClientState::connecting, nullptr, milliseconds(0));
    opened_ = false;
    ClientError error = session.run(*this);
    if (stopping()) break;
    if (!opened_) ++failed_attempts_;
    if (opened_ && stream_proved_itself()) backoff_.reset();
    error.fatal = is_fatal(error);
    {
      std::lock_guard lock(error_mutex_);
      last_error_ = error;
    }
    if (error.fatal) {
      report(ClientState::failed, &error, milliseconds(0));
      return finish(ClientState::failed);
    }
    const bool at_once = error.kind == ErrorKind::aborted;
    const milliseconds delay = at_once ? milliseconds(0) : backoff_.next(retry_after_);
    retry_after_ = milliseconds(0);
    interrupt_.store(false, std::memory_order_release);
    report(ClientState::waiting, &error, delay);
    pause(delay);
  }
  finish(ClientState::stopped);
}

// Waits `delay`, or less when stop() or reconnect() come first.
void Driver::pause(milliseconds delay) {
  const auto deadline = Clock::now() + delay;
  while (!interrupt_.load(std::memory_order_acquire) && !stopping()) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return;
    pollfd p{wake_.fd(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) > 0) wake_.drain();
  }
  if (!stopping()) interrupt_.store(false, std::memory_order_release);
}

// A stream that opened is a success for the back-off only once it gave an
// event or lasted a while: a server that accepts and at once closes (one
// over its limits, or one that asks for "retry: 0") would otherwise be
// called again and again without a pause, by every client it has.
bool Driver::stream_proved_itself() const {
  constexpr auto kLastedAWhile = std::chrono::seconds(1);
  return Clock::now() - opened_at_ >= kLastedAWhile || inbox_.pushed() != pushed_at_open_;
}

void Driver::report(ClientState state, const ClientError* error, milliseconds retry_in) {
  state_.store(state, std::memory_order_release);
  if (!options_.on_status) return;
  options_.on_status(StatusReport{.state = state, .error = error, .retry_in = retry_in, .attempt = failed_attempts_});
}

void Driver::finish(ClientState state) {
  inbox_.close();
  if (state == ClientState::stopped) report(state, nullptr, milliseconds(0));
  state_.store(state, std::memory_order_release);
}

}  // namespace sluice::client::detail
