// Owns: PlainTcp, a Transport over an accepted TCP socket: recv for input,
// one sendmsg per gathered write, shutdown(SHUT_WR) for a graceful close.
#pragma once

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

  [[nodiscard]] int fd() const override { return fd_; }
  // recv, retried on EINTR.
  [[nodiscard]] long read(char* out, std::size_t room) override;
  [[nodiscard]] long writev(const struct iovec* iov, int count) override { return writer_.writev(iov, count); }
  int shutdown_write() override;
  [[nodiscard]] std::string peer_address() const override;

 private:
  int fd_;
  conn::SocketWriter writer_;
};

// The address of the peer connected to `fd`, "IP:PORT" ("[IPv6]:PORT");
// empty when unknown.
[[nodiscard]] std::string peer_address_of(int fd);

}  // namespace sluice::transport
