#include "ws_integrity_reader.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "clock.hpp"
#include "net.hpp"
#include "stamp.hpp"
#include "ws_client.hpp"

namespace sluice::bench {

namespace {
constexpr int kPollMs = 50;  // how soon the thread notices stop()
}  // namespace

WsIntegrityReader::WsIntegrityReader(const IntegrityOptions& options)
    : options_(options),
      scanner_(std::size_t{64} << 20),
      seen_(static_cast<std::size_t>(options.publishers) * options.per_publisher) {}

bool WsIntegrityReader::start() {
  WsConnection c = ws_connect(options_.server, options_.path, now_ns() + kHandshakeTimeout);
  fd_ = c.fd;
  error_ = c.error;
  if (fd_ < 0) return false;
  first_bytes_ = std::move(c.leftover);
  thread_ = std::thread([this] { run(); });
  return true;
}

void WsIntegrityReader::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void WsIntegrityReader::run() {
  std::vector<char> buffer(256 * 1024);
  std::string_view bytes = first_bytes_;
  while (!stop_.load(std::memory_order_relaxed) && error_.empty()) {
    if (bytes.empty()) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, kPollMs) <= 0) continue;
      const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = "the server closed the connection without a close frame";
      if (n <= 0) break;
      bytes = std::string_view(buffer.data(), static_cast<std::size_t>(n));
    }
    now_ = now_ns();
    const WsScanStatus status = scanner_.feed(bytes, *this);
    bytes = {};
    if (status == WsScanStatus::bad_frame || status == WsScanStatus::too_large) {
      error_ = std::string("malformed frame: ") + scanner_.error();
    }
    if (!replies_.empty() && !write_all(fd_, replies_)) error_ = "cannot answer a ping";
    replies_.clear();
  }
}

void WsIntegrityReader::on_message(bool text, std::string_view payload) {
  delivered_.fetch_add(1, std::memory_order_relaxed);
  ++counts_.delivered;
  if (counts_.first_ns == 0) counts_.first_ns = now_;
  counts_.last_ns = now_;
  std::uint32_t index = 0;
  std::uint64_t seq = 0;
  if (!intact(text, payload, index, seq)) return corrupt(payload);
  std::uint64_t stamp = 0;
  if (read_stamp(payload, stamp)) latency_.record(now_ > stamp ? now_ - stamp : 0);
  const auto slot = static_cast<std::size_t>(index) * options_.per_publisher + (seq - 1);
  if (seen_[slot]) {
    ++counts_.duplicates;
    return;
  }
  seen_[slot] = true;
  ++counts_.intact;
  if (order_.next(index, seq).out_of_order) ++counts_.reordered;
}

bool WsIntegrityReader::intact(bool text, std::string_view payload, std::uint32_t& index, std::uint64_t& seq) const {
  std::uint64_t stamp = 0;
  return text && payload.size() == std::max(options_.size, kPayloadHeader) && read_stamp(payload, stamp) &&
         read_sequence(payload, index, seq) && index < options_.publishers && seq >= 1 &&
         seq <= options_.per_publisher && filler_intact(payload, index);
}

void WsIntegrityReader::corrupt(std::string_view payload) {
  if (counts_.corrupted++ == 0) first_corrupt_.assign(payload.substr(0, 80));
}

void WsIntegrityReader::on_ping(std::string_view payload) {
  if (!append_masked(replies_, proto::ws::Opcode::pong, payload)) error_ = "cannot mask a pong";
}

void WsIntegrityReader::on_close(std::uint16_t code, std::string_view reason) {
  error_ = "the server closed the subscriber: " + std::to_string(code) + " " + std::string(reason);
}

}  // namespace sluice::bench
