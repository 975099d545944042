// Owns: LinkProxy, the link emulator: a TCP proxy on 127.0.0.1 that puts a
// constrained link (say, Wi-Fi to an ESP32: a few Mbit/s, tens of ms, a
// 5760-byte window) between the bench's clients and a server on loopback.
//
// Each direction is a pipe: bytes read from one side wait `delay` before they
// may leave, leave no faster than the direction's token bucket (shared by all
// connections, as on a real link), and no more than `window` bytes are in
// the pipe, so the proxy stops reading and TCP's own flow control pushes
// back on the sender. The server-facing socket also gets a receive buffer of
// `window`, so the server's kernel sees the small window too.
//
// One thread, ppoll over all sockets: it is built to be faithful to a slow
// link, not to carry ten thousand fast connections.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "link_options.hpp"
#include "io/socket.hpp"

namespace sluice::bench {

class LinkProxy {
 public:
  LinkProxy(const io::Endpoint& server, const LinkOptions& link);
  ~LinkProxy();  // stops
  LinkProxy(const LinkProxy&) = delete;
  LinkProxy& operator=(const LinkProxy&) = delete;

  // Listens on 127.0.0.1:0 and starts the thread. Returns 0 or -errno.
  int start();
  void stop();
  [[nodiscard]] io::Endpoint endpoint() const { return {"127.0.0.1", port_}; }
  // Bytes delivered to clients so far (server to client).
  [[nodiscard]] std::uint64_t bytes_down() const { return bytes_down_.load(std::memory_order_relaxed); }

 private:
  struct Pipe;
  struct Link;
  class Bucket;

  void run();
  void accept_links();
  void pump(Pipe& pipe, Bucket& bucket, std::uint64_t now);
  void read_into(Pipe& pipe, std::uint64_t now);
  void write_from(Pipe& pipe, Bucket& bucket, std::uint64_t now);
  std::uint64_t next_wake(const Pipe& pipe, const Bucket& bucket, std::uint64_t now) const;
  void wait(std::uint64_t now, std::uint64_t wake_at);
  void reap();

  io::Endpoint server_;
  LinkOptions link_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::vector<std::unique_ptr<Link>> links_;
  std::unique_ptr<Bucket> down_;
  std::unique_ptr<Bucket> up_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> bytes_down_{0};
  std::thread thread_;
};

}  // namespace sluice::bench
