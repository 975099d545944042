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

namespace sluice::bench {

Publisher::Publisher(const PublisherOptions& options) : options_(options) {
  const std::string payload = make_payload(options_.size, 0);
  std::string target = "/pub/" + options_.topic;
  if (!options_.event.empty()) target += "?event=" + options_.event;
  request_ = "POST " + target + " HTTP/1.1\r\nHost: bench\r\nContent-Type: text/plain\r\nContent-Length: " +
             std::to_string(payload.size()) + "\r\n\r\n";
  stamp_offset_ = request_.size();
  request_ += payload;
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

bool Publisher::connect() {
  fd_ = dial(options_.server);
  return fd_ >= 0 && io::set_nonblocking(fd_, true) == 0;
}

bool Publisher::run(std::uint64_t deadline_ns) {
  if (fd_ < 0 && !connect()) return fail("cannot connect");
  started_ns_ = now_ns();
  while (!stop_.load(std::memory_order_relaxed)) {
    const std::uint64_t now = now_ns();
    if (now >= deadline_ns || (options_.max_events != 0 && answered_ >= options_.max_events)) break;
    if (out_done_ == out_.size()) fill(batch_allowed(now), now);
    pollfd p{fd_, static_cast<short>(POLLIN | (out_done_ < out_.size() ? POLLOUT : 0)), 0};
    if (::poll(&p, 1, poll_timeout(now, deadline_ns)) < 0 && errno != EINTR) return fail("poll failed");
    if ((p.revents & POLLOUT) != 0 && !flush()) return false;
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !drain_replies()) return false;
  }
  return true;
}

// How many requests may go now: the window's room, the rate's allowance,
// what is left of max_events, and one pipeline's worth at most.
std::size_t Publisher::batch_allowed(std::uint64_t now) const {
  std::uint64_t allowed = options_.window - (issued_ - answered_);
  if (options_.rate > 0) {
    const double due = std::floor(static_cast<double>(now - started_ns_) * options_.rate / 1e9) + 1;
    allowed = std::min<std::uint64_t>(allowed, static_cast<std::uint64_t>(std::max(0.0, due - static_cast<double>(issued_))));
  }
  if (options_.max_events != 0) allowed = std::min(allowed, options_.max_events - issued_);
  if (options_.delivered != nullptr) {
    const std::uint64_t limit = options_.delivered->load(std::memory_order_relaxed) + options_.max_ahead;
    allowed = std::min(allowed, limit > issued_ ? limit - issued_ : 0);
  }
  return static_cast<std::size_t>(std::min<std::uint64_t>(allowed, options_.pipeline));
}

void Publisher::fill(std::size_t count, std::uint64_t now) {
  out_.clear();
  out_done_ = 0;
  write_stamp(request_.data() + stamp_offset_, now);
  for (std::size_t i = 0; i < count; ++i) out_ += request_;
  issued_ += count;
  counters_.sent.fetch_add(count, std::memory_order_relaxed);
}

bool Publisher::flush() {
  const ssize_t n = ::send(fd_, out_.data() + out_done_, out_.size() - out_done_, MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n < 0) return fail("write failed");
  out_done_ += static_cast<std::size_t>(n);
  return true;
}

bool Publisher::drain_replies() {
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n <= 0) return fail("server closed the publishing connection");
  in_.append(chunk, static_cast<std::size_t>(n));
  std::size_t used = 0;
  ReplyHead head;
  while (used < in_.size()) {
    const HeadStatus status = parse_reply_head(std::string_view(in_).substr(used), head);
    if (status == HeadStatus::error) return fail("malformed publish reply");
    if (status == HeadStatus::need_more || used + reply_size(head) > in_.size()) break;
    used += reply_size(head);
    ++answered_;
    auto& counter = head.status / 100 == 2 ? counters_.accepted : counters_.refused;
    counter.fetch_add(1, std::memory_order_relaxed);
  }
  in_.erase(0, used);
  return true;
}

// Waits for the socket, but not past the next request the rate allows.
int Publisher::poll_timeout(std::uint64_t now, std::uint64_t deadline) const {
  std::uint64_t wait = std::min<std::uint64_t>(deadline - now, 50 * kNsPerMs);
  if (options_.rate > 0 && out_done_ == out_.size() && issued_ - answered_ < options_.window) {
    const double next = static_cast<double>(issued_) / options_.rate * 1e9 + static_cast<double>(started_ns_);
    wait = std::min<std::uint64_t>(wait, next > static_cast<double>(now) ? static_cast<std::uint64_t>(next) - now : 0);
  }
  return static_cast<int>((wait + kNsPerMs - 1) / kNsPerMs);
}

bool Publisher::fail(const char* why) {
  error_ = why;
  return false;
}

}  // namespace sluice::bench
