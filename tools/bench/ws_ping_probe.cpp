#include "ws_ping_probe.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "clock.hpp"
#include "net.hpp"
#include "ws_client.hpp"

namespace sluice::bench {

WsPingProbe::~WsPingProbe() {
  if (fd_ >= 0) ::close(fd_);
}

bool WsPingProbe::connect(std::uint64_t timeout_ns) {
  WsConnection c = ws_connect(server_, path_, now_ns() + timeout_ns);
  if (c.fd < 0) {
    error_ = c.error;
    return false;
  }
  fd_ = c.fd;
  scanner_ = WsFrameScanner();
  return take(c.leftover);
}

ProbeResult WsPingProbe::ping(std::uint64_t timeout_ns) {
  const std::uint64_t start = now_ns();
  ProbeResult result;
  if (fd_ < 0 && !connect(timeout_ns)) return result;
  expected_ = "ping " + std::to_string(++sent_);
  answered_ = false;
  std::string frame;
  const std::uint64_t sent_at = now_ns();
  if (!append_masked(frame, proto::ws::Opcode::ping, expected_) || !write_all(fd_, frame)) {
    disconnect("cannot send a ping");
  } else if (read_until_pong(start + timeout_ns)) {
    result.ok = true;
  }
  result.ns = now_ns() - sent_at;
  return result;
}

bool WsPingProbe::read_until_pong(std::uint64_t deadline) {
  char chunk[4096];
  for (std::uint64_t now = now_ns(); fd_ >= 0 && !answered_ && now < deadline; now = now_ns()) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>((deadline - now) / kNsPerMs) + 1) <= 0) continue;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) disconnect("the server closed the probe connection");
    else take(std::string_view(chunk, static_cast<std::size_t>(n)));
  }
  return answered_;
}

bool WsPingProbe::take(std::string_view bytes) {
  const WsScanStatus status = scanner_.feed(bytes, *this);
  if (status == WsScanStatus::bad_frame || status == WsScanStatus::too_large) {
    disconnect(std::string("malformed frame: ") + scanner_.error());
  }
  if (fd_ >= 0 && !replies_.empty() && !write_all(fd_, replies_)) disconnect("cannot answer a ping");
  replies_.clear();
  return fd_ >= 0;
}

// A quiet topic: a message would be someone else's; it is not the probe's
// business, so it is read past.
void WsPingProbe::on_message(bool, std::string_view) {}

void WsPingProbe::on_ping(std::string_view payload) {
  if (!append_masked(replies_, proto::ws::Opcode::pong, payload)) error_ = "cannot mask a pong";
}

void WsPingProbe::on_pong(std::string_view payload) {
  if (payload == expected_) answered_ = true;
}

void WsPingProbe::on_close(std::uint16_t code, std::string_view) {
  disconnect("the server closed the probe with " + std::to_string(code));
}

void WsPingProbe::disconnect(std::string why) {
  error_ = std::move(why);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace sluice::bench
