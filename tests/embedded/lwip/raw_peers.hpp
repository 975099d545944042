// Owns: RawPeer, one end of a TCP connection driven with lwIP's raw API
// and nothing of sluice's, and RawListener, which accepts connections on
// the server's address. Tests use them as the far end of what they check.
#pragma once

#include <lwip/tcp.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lwip_net.hpp"

namespace sluice::test {

class RawPeer {
 public:
  // Takes over `pcb` (a connected or connecting one) and its callbacks.
  explicit RawPeer(tcp_pcb* pcb);
  // Connects a new client pcb to the server's address on `port`.
  static std::unique_ptr<RawPeer> connect(LwipNet& net, std::uint16_t port = LwipNet::kPort);
  ~RawPeer();  // aborts the connection if it is still open
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  // Queues bytes and writes what lwIP takes now; the rest goes as it acks.
  void send(std::string_view bytes);
  // While not reading, received bytes are kept but not acknowledged to
  // lwIP (no tcp_recved), so the window the peer sees closes, as it does
  // in front of an application that stopped reading its socket.
  void set_reading(bool reading);
  void close();
  // Sends `bytes` with the FIN in the same segment, as a client that writes
  // its request and shuts its side at once; it reads on.
  void send_and_shut(std::string_view bytes);

  [[nodiscard]] bool connected() const { return connected_; }
  [[nodiscard]] bool peer_closed() const { return peer_closed_; }
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] const std::string& received() const { return received_; }
  [[nodiscard]] std::size_t unsent() const { return outgoing_.size() - written_; }

 private:
  static err_t on_connected(void* arg, tcp_pcb* pcb, err_t err);
  static err_t on_recv(void* arg, tcp_pcb* pcb, pbuf* p, err_t err);
  static err_t on_sent(void* arg, tcp_pcb* pcb, u16_t len);
  static void on_error(void* arg, err_t err);
  void pump();

  tcp_pcb* pcb_;
  bool connected_ = false;
  bool peer_closed_ = false;
  bool failed_ = false;
  bool reading_ = true;
  bool shut_after_ = false;  // FIN once everything queued is written
  std::size_t unacknowledged_ = 0;  // received but not yet passed to tcp_recved
  std::string received_;
  std::string outgoing_;
  std::size_t written_ = 0;
};

class RawListener {
 public:
  // Called with each accepted pcb; returns ERR_OK when it took the pcb.
  using Accept = std::function<err_t(tcp_pcb*)>;

  RawListener(LwipNet& net, Accept accept, std::uint16_t port = LwipNet::kPort);
  ~RawListener();
  RawListener(const RawListener&) = delete;
  RawListener& operator=(const RawListener&) = delete;

  [[nodiscard]] bool ok() const { return pcb_ != nullptr; }

 private:
  static err_t on_accept(void* arg, tcp_pcb* pcb, err_t err);

  tcp_pcb* pcb_ = nullptr;
  Accept accept_;
};

}  // namespace sluice::test
