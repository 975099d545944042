// Owns: PlainTcp, a Transport over an accepted TCP socket: recv for input,
// one sendmsg per gathered write, shutdown(SHUT_WR) for a graceful close.
#pragma once

#include <cstdint>

#include "conn/writer.hpp"
#include "conn/transport.hpp"

namespace sluice::transport {

class PlainTcp final : public conn::Transport {
 public:
  // Takes `fd` (non-blocking) and closes it when destroyed.
  explicit PlainTcp(int fd);
  ~PlainTcp() override;
  PlainTcp(const PlainTcp&) = delete;
  PlainTcp& operator=(const PlainTcp&) = delete;

  [[nodiscard]] int fd() const override { return writer_.fd(); }
  // recv, retried on EINTR; with the arrival noted once asked to.
  [[nodiscard]] long read(char* out, std::size_t room) override;
  bool note_arrivals() override;
  [[nodiscard]] std::int64_t last_arrival() const override { return arrival_ == kUnnoted ? 0 : arrival_; }
  // Peeks at the socket (io::peek_arrival).
  [[nodiscard]] bool unread_input(std::int64_t& arrival) override;
  [[nodiscard]] long writev(const struct iovec* iov, int count) override { return writer_.writev(iov, count); }
  int shutdown_write() override;
  [[nodiscard]] std::string peer_address() const override;

 private:
  static constexpr std::int64_t kUnnoted = -1;

  // The socket is the writer's: one copy of it, and a transport that fits
  // the allocation it had before it noted arrivals (40 bytes).
  conn::SocketWriter writer_;
  // kUnnoted until note_arrivals(); then the last read's (io::recv_stamped).
  std::int64_t arrival_ = kUnnoted;
};

// The address of the peer connected to `fd`, "IP:PORT" ("[IPv6]:PORT");
// empty when unknown.
[[nodiscard]] std::string peer_address_of(int fd);

}  // namespace sluice::transport
