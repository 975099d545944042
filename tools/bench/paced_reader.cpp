#include "paced_reader.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "sse_scanner.hpp"
#include "stamp.hpp"

namespace sluice::bench {

// Folds events into the current AgeSlot.
class PacedReader::Handler final : public SseHandler {
 public:
  Handler(PacedReader& reader, std::uint64_t start) : reader_(reader), start_(start), slot_end_(start + reader.options_.slot_ns) {}

  void on_event(const SseEvent& event) override {
    roll(now_);
    if (event.has_id && last_id_ != 0 && event.id > last_id_ + 1) slot_.gaps += event.id - last_id_ - 1;
    if (event.has_id) last_id_ = event.id;
    std::uint64_t stamp = 0;
    if (!read_stamp(event.data, stamp)) return;
    const double age_ms = static_cast<double>(now_ > stamp ? now_ - stamp : 0) / 1e6;
    ++slot_.events;
    ++reader_.events_;
    age_sum_ += age_ms;
    slot_.max_ms = std::max(slot_.max_ms, age_ms);
  }
  void on_comment(std::string_view) override { ++reader_.notices_; }

  void set_now(std::uint64_t now) { now_ = now; }
  // Closes every slot that ended before `now`.
  void roll(std::uint64_t now) {
    while (now >= slot_end_) {
      slot_.t = static_cast<double>(slot_end_ - start_) / 1e9;
      slot_.mean_ms = slot_.events > 0 ? age_sum_ / static_cast<double>(slot_.events) : 0;
      reader_.slots_.push_back(slot_);
      slot_ = AgeSlot();
      age_sum_ = 0;
      slot_end_ += reader_.options_.slot_ns;
    }
  }

 private:
  PacedReader& reader_;
  std::uint64_t start_;
  std::uint64_t slot_end_;
  std::uint64_t now_ = 0;
  std::uint64_t last_id_ = 0;
  AgeSlot slot_;
  double age_sum_ = 0;
};

bool PacedReader::start() {
  fd_ = dial(options_.server, options_.receive_buffer);
  if (fd_ < 0 || !write_all(fd_, "GET " + options_.path + " HTTP/1.1\r\nHost: bench\r\n\r\n")) {
    error_ = "cannot connect";
    return false;
  }
  // A short receive timeout lets the thread notice stop() while idle.
  const timeval tv{0, 100'000};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  thread_ = std::thread([this] { run(); });
  return true;
}

void PacedReader::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// Reads a little at a time and sleeps to hold the drain rate: the sleep is
// the slow device's decode time, not a wait for another thread.
void PacedReader::run() {
  const std::uint64_t start = now_ns();
  Handler handler(*this, start);
  SseScanner scanner;
  std::string head;
  bool head_done = false;
  char buffer[2048];
  while (!stop_.load(std::memory_order_relaxed)) {
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    const std::uint64_t now = now_ns();
    handler.roll(now);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      closed_by_server_ = n == 0;
      break;
    }
    std::string_view bytes(buffer, static_cast<std::size_t>(n));
    if (!head_done) {
      head.append(bytes);
      ReplyHead reply;
      const HeadStatus status = parse_reply_head(head, reply);
      if (status == HeadStatus::need_more) continue;
      if (status == HeadStatus::error || reply.status != 200) {
        error_ = "bad stream head";
        break;
      }
      head_done = true;
      head.erase(0, reply.head_size);
      bytes = head;
    }
    handler.set_now(now);
    if (scanner.feed(bytes, handler) != ScanStatus::ok) {
      error_ = "malformed stream: " + scanner.bad_line();
      break;
    }
    head.clear();
    const auto due = start + static_cast<std::uint64_t>(static_cast<double>(events_) / options_.drain_rate * 1e9);
    if (due > now_ns()) std::this_thread::sleep_for(std::chrono::nanoseconds(due - now_ns()));
  }
  handler.roll(now_ns());
}

}  // namespace sluice::bench
