#include "publisher.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "stamp.hpp"
#include "ws_client.hpp"

namespace sluice::bench {

namespace {
constexpr std::uint64_t kCloseWait = 2 * kNsPerSec;
}  // namespace

std::string publish_mode_name(PublishMode mode) { return mode == PublishMode::ws ? "ws" : "post"; }

Publisher::Publisher(const PublisherOptions& options) : options_(options) {
  payload_ = make_payload(options_.size, 0, options_.index);
  std::string target = "/pub/" + options_.topic;
  if (!options_.event.empty()) target += "?event=" + options_.event;
  if (!options_.token.empty()) target += (options_.event.empty() ? "?token=" : "&token=") + options_.token;
  request_ = "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: " +
             std::to_string(payload_.size()) + "\r\n\r\n";
  stamp_offset_ = request_.size();
  request_ += payload_;
  if (options_.retry_refused && options_.mode == PublishMode::post) options_.pipeline = options_.window = 1;
  options_.pipeline = std::max<std::size_t>(1, options_.pipeline);
  options_.window = std::max(options_.window, options_.pipeline);
}

Publisher::~Publisher() {
  stop();
  if (fd_ >= 0) ::close(fd_);
}

void Publisher::start(std::uint64_t deadline_ns) {
  thread_ = std::thread([this, deadline_ns] { run(deadline_ns); });
}

void Publisher::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void Publisher::finish() {
  finishing_.store(true);
  if (thread_.joinable()) thread_.join();
}

bool Publisher::connect() {
  if (options_.mode == PublishMode::ws) return connect_ws();
  fd_ = dial(options_.server);
  if (fd_ < 0) return false;
  if (const std::string why = channel_.open(fd_, options_.tls.get()); !why.empty()) {
    ws_error_ = why;  // run() reports it as why the connection failed
    return false;
  }
  return io::set_nonblocking(fd_, true) == 0;
}

bool Publisher::connect_ws() {
  WsConnection c = ws_connect(channel_, options_.tls.get(), options_.server,
                              "/pub/" + options_.topic + (options_.token.empty() ? "" : "?token=" + options_.token),
                              now_ns() + kHandshakeTimeout);
  fd_ = c.fd;
  if (fd_ < 0) {
    ws_error_ = "cannot publish over WebSocket: " + c.error;
    return false;
  }
  return io::set_nonblocking(fd_, true) == 0 && scan_ws(c.leftover);
}

bool Publisher::run(std::uint64_t deadline_ns) {
  if (fd_ < 0 && !connect()) return fail(ws_error_.empty() ? "cannot connect" : ws_error_.c_str());
  started_ns_ = now_ns();
  while (!stop_.load(std::memory_order_relaxed)) {
    const std::uint64_t now = now_ns();
    if (now >= deadline_ns || (options_.max_events != 0 && answered_ >= options_.max_events)) break;
    const bool finishing = finishing_.load(std::memory_order_relaxed);
    if (finishing && out_done_ == out_.size() && answered_ == issued_) break;
    if (out_done_ == out_.size() && !finishing) fill(batch_allowed(now), now);
    pollfd p{fd_, static_cast<short>(POLLIN | (out_done_ < out_.size() ? POLLOUT : 0)), 0};
    // Over TLS, bytes already read from the socket wait in OpenSSL, which
    // the socket does not report: those are read first.
    const std::uint64_t wait = channel_.buffered() ? 0 : wait_ns(now, deadline_ns);
    const timespec timeout{static_cast<time_t>(wait / kNsPerSec), static_cast<long>(wait % kNsPerSec)};
    if (::ppoll(&p, 1, &timeout, nullptr) < 0 && errno != EINTR) return fail("poll failed");
    if ((p.revents & POLLOUT) != 0 && !flush()) return false;
    if (((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0 || channel_.buffered()) && !read_input()) return false;
  }
  if (options_.mode == PublishMode::ws) {
    close_ws(finishing_.load() || (options_.max_events != 0 && answered_ >= options_.max_events));
  }
  return ws_error_.empty() || fail(ws_error_.c_str());
}

// How many events may go now: the window's room, the rate's allowance,
// what is left of max_events, and one pipeline's worth at most.
std::size_t Publisher::batch_allowed(std::uint64_t now) const {
  std::uint64_t allowed = options_.window - (issued_ - answered_);
  if (options_.rate > 0) {
    const double due = std::floor(static_cast<double>(now - started_ns_) * options_.rate / 1e9) + 1;
    allowed = std::min<std::uint64_t>(allowed, static_cast<std::uint64_t>(std::max(0.0, due - static_cast<double>(issued_))));
  }
  if (options_.max_events != 0) allowed = std::min(allowed, options_.max_events - issued_);
  if (options_.delivered != nullptr) {
    std::uint64_t delivered = options_.delivered->load(std::memory_order_relaxed);
    std::uint64_t per_event = options_.delivered_per_event;
    if (options_.closed_streams != nullptr) {
      // Read in this order, an ended stream's events may be in
      // closed_events before they are in delivered: saturated, not wrapped.
      const std::uint64_t ended = options_.closed_events->load(std::memory_order_relaxed);
      delivered = delivered > ended ? delivered - ended : 0;
      const std::uint64_t cut = options_.closed_streams->load(std::memory_order_relaxed) * options_.publishers;
      per_event = per_event > cut ? per_event - cut : 0;
    }
    // Nobody left reading: nothing to keep pace with.
    if (per_event != 0) {
      const std::uint64_t limit = delivered / per_event + options_.max_ahead;
      allowed = std::min(allowed, limit > issued_ ? limit - issued_ : 0);
    }
  }
  return static_cast<std::size_t>(std::min<std::uint64_t>(allowed, options_.pipeline));
}

// The batch shares one stamp (the time it was written); each event has its
// own sequence number.
void Publisher::fill(std::size_t count, std::uint64_t now) {
  out_.clear();
  out_done_ = 0;
  if (options_.mode == PublishMode::ws) {
    out_.swap(control_);
    if (!fill_ws(count, now)) return;
  } else {
    write_stamp(request_.data() + stamp_offset_, now);
    fill_post(count);
  }
  issued_ += count;
  counters_.sent.fetch_add(count, std::memory_order_relaxed);
}

void Publisher::fill_post(std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = out_.size() + stamp_offset_;
    out_ += request_;
    write_sequence(out_.data() + at, options_.index, issued_ + i + 1);
  }
}

bool Publisher::fill_ws(std::size_t count, std::uint64_t now) {
  write_stamp(payload_.data(), now);
  for (std::size_t i = 0; i < count; ++i) {
    write_sequence(payload_.data(), options_.index, issued_ + i + 1);
    if (!append_masked(out_, proto::ws::Opcode::text, payload_)) {
      ws_error_ = "no entropy for a mask key";
      stop_.store(true);
      out_.clear();
      return false;
    }
  }
  return true;
}

bool Publisher::flush() {
  const ssize_t n = channel_.write(std::string_view(out_).substr(out_done_));
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) return reconnect_after_close();
  if (n < 0) return fail("write failed");
  out_done_ += static_cast<std::size_t>(n);
  if (options_.mode == PublishMode::ws && out_done_ == out_.size() && answered_ < issued_) {
    counters_.accepted.fetch_add(issued_ - answered_, std::memory_order_relaxed);
    answered_ = issued_;
  }
  return true;
}

bool Publisher::read_input() {
  char chunk[65536];
  const ssize_t n = channel_.read(chunk, sizeof chunk);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n == 0 || (n < 0 && errno == ECONNRESET)) return reconnect_after_close();
  if (n < 0) return fail("read failed");
  const std::string_view bytes(chunk, static_cast<std::size_t>(n));
  return options_.mode == PublishMode::ws ? scan_ws(bytes) : drain_replies(bytes);
}

bool Publisher::drain_replies(std::string_view bytes) {
  in_.append(bytes);
  std::size_t used = 0;
  ReplyHead head;
  while (used < in_.size()) {
    const HeadStatus status = parse_reply_head(std::string_view(in_).substr(used), head);
    if (status == HeadStatus::error) return fail("malformed publish reply");
    if (status == HeadStatus::need_more || used + reply_size(head) > in_.size()) break;
    used += reply_size(head);
    ++answered_here_;
    const bool taken = head.status / 100 == 2;
    (taken ? counters_.accepted : counters_.refused).fetch_add(1, std::memory_order_relaxed);
    // The one request in flight goes again with the same sequence number.
    if (!taken && options_.retry_refused) --issued_;
    else ++answered_;
  }
  in_.erase(0, used);
  return true;
}

// A server that closes after each reply (no keep-alive, like websocketpp's
// HTTP side) is followed: a new connection, one request at a time from then
// on, and the requests it left unanswered go again with the same numbers
// (it read none of them: it closed after the one it answered).
bool Publisher::reconnect_after_close() {
  if (options_.mode != PublishMode::post || answered_here_ == 0) return fail("server closed the publishing connection");
  ::close(fd_);
  fd_ = -1;
  options_.pipeline = options_.window = 1;
  issued_ = answered_;
  out_.clear();
  out_done_ = 0;
  in_.clear();
  answered_here_ = 0;
  return connect() || fail("cannot reconnect");
}

bool Publisher::scan_ws(std::string_view bytes) {
  const WsScanStatus status = scanner_.feed(bytes, *this);
  if (status == WsScanStatus::bad_frame || status == WsScanStatus::too_large) {
    ws_error_ = std::string("malformed frame from the server: ") + scanner_.error();
  }
  return ws_error_.empty() || fail(ws_error_.c_str());
}

// Sends what is left and a close (1000). With `wait`, reads until the
// server's close or EOF, 2 s at most, so that the server has taken every
// event before the socket goes (closing with unread input would reset it).
void Publisher::close_ws(bool wait) {
  if (!ws_error_.empty() || ws_closed_) return;
  closing_ = true;
  out_.erase(0, out_done_);
  out_done_ = 0;
  out_ += control_;
  if (!append_close(out_, 1000)) return;
  const std::uint64_t until = now_ns() + kCloseWait;
  for (std::uint64_t now = now_ns(); now < until && (out_done_ < out_.size() || (wait && !ws_closed_)); now = now_ns()) {
    pollfd p{fd_, static_cast<short>(POLLIN | (out_done_ < out_.size() ? POLLOUT : 0)), 0};
    // Over TLS the server's close may already wait in OpenSSL.
    const bool buffered = channel_.buffered();
    const int timeout_ms = buffered ? 0 : static_cast<int>((until - now) / kNsPerMs) + 1;
    if (::poll(&p, 1, timeout_ms) < 0 && errno != EINTR) return;
    if ((p.revents & POLLOUT) != 0 && !flush()) return;
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) == 0 && !buffered) continue;
    char chunk[4096];
    const ssize_t n = channel_.read(chunk, sizeof chunk);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
    if (n > 0 && scanner_.feed(std::string_view(chunk, static_cast<std::size_t>(n)), *this) != WsScanStatus::ok) return;
  }
}

// Some servers acknowledge each published message (Nchan answers with its
// channel's state); what they say is not the bench's to check, only counted.
void Publisher::on_message(bool, std::string_view) { counters_.acks.fetch_add(1, std::memory_order_relaxed); }

void Publisher::on_ping(std::string_view payload) {
  if (!append_masked(control_, proto::ws::Opcode::pong, payload)) ws_error_ = "no entropy for a mask key";
}

void Publisher::on_close(std::uint16_t code, std::string_view reason) {
  ws_closed_ = true;
  if (closing_ && code == 1000) return;
  ws_error_ = "the server closed the publishing connection: " + std::to_string(code) + " " + std::string(reason);
}

// Waits for the socket, but not past the next request the rate allows.
std::uint64_t Publisher::wait_ns(std::uint64_t now, std::uint64_t deadline) const {
  std::uint64_t wait = std::min<std::uint64_t>(deadline - now, 50 * kNsPerMs);
  if (options_.rate > 0 && out_done_ == out_.size() && issued_ - answered_ < options_.window) {
    const double next = static_cast<double>(issued_) / options_.rate * 1e9 + static_cast<double>(started_ns_);
    wait = std::min<std::uint64_t>(wait, next > static_cast<double>(now) ? static_cast<std::uint64_t>(next) - now : 0);
  }
  // Closed loop: the readers' progress raises no event here, so look soon.
  if (options_.delivered != nullptr && out_done_ == out_.size()) wait = std::min(wait, options_.ahead_poll_ns);
  return wait;
}

bool Publisher::fail(const char* why) {
  error_ = why;
  return false;
}

}  // namespace sluice::bench
