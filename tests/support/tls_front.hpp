// Owns: TlsFront, TLS in front of a plain server, for client tests: it
// answers TLS (our TlsStream, ALPN http/1.1) on a loopback port of its own
// and relays the plaintext both ways to a server on `backend_port` (a
// RunningServer or sluiced), one thread, one poll() loop. It stands in for
// sluiced's own TLS until sluiced has it.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "transport/tls_context.hpp"

namespace sluice::test {

class TlsFront {
 public:
  TlsFront(transport::TlsContext context, std::uint16_t backend_port);
  ~TlsFront();
  TlsFront(const TlsFront&) = delete;
  TlsFront& operator=(const TlsFront&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  // Handshakes completed, and refused (a client that did not trust us).
  [[nodiscard]] int handshakes() const { return handshakes_.load(); }
  [[nodiscard]] int refused() const { return refused_.load(); }

 private:
  struct Pair;
  void run();
  bool serve(Pair& pair);

  transport::TlsContext context_;
  std::uint16_t backend_port_;
  int listener_ = -1;
  int stop_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::atomic<int> handshakes_{0};
  std::atomic<int> refused_{0};
  std::thread thread_;
};

}  // namespace sluice::test
