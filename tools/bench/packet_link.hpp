// Owns: PacketLink, the link emulator at the packet level: the server and
// the bench's readers in two network namespaces of their own, each with a
// tun device, and a thread that carries IP packets from one tun to the
// other through a LinkBottleneck per direction (rate, queue, delay).
//
// TCP runs end to end between the reader and the server, so what is on the
// link is unacknowledged at the server, and what the reader has not read
// shows in its window, as on a real link. (The TCP proxy, link_proxy.hpp,
// acknowledges what it reads and holds it where the server cannot see it.)
//
// The server keeps its address: it listens on 127.0.0.1 in its namespace,
// where the publisher reaches it over that namespace's loopback, off the
// link. The readers' namespace has no loopback of its own: 127.0.0.0/8
// goes out of its tun, so a reader dials the server's own 127.0.0.1:PORT
// and reaches it through the link. Both tun devices accept loopback
// addresses from outside (route_localnet); the devices' own addresses are
// 10.251.0.1 (server side) and 10.251.0.2 (readers), private to the two
// namespaces. Everything goes when the PacketLink does: the namespaces have
// no names and the kernel removes them, devices and all, with the last
// file and process that holds them (PacketLink owns the files; the server
// process it is given to is the caller's to stop).
//
// Needs CAP_NET_ADMIN and CAP_SYS_ADMIN, and /dev/net/tun.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "link_options.hpp"
#include "net_namespace.hpp"

namespace sluice::bench {

class PacketLink {
 public:
  explicit PacketLink(const LinkOptions& link) : link_(link) {}
  ~PacketLink();  // stops
  PacketLink(const PacketLink&) = delete;
  PacketLink& operator=(const PacketLink&) = delete;

  // Makes the namespaces and devices and starts carrying packets. Returns
  // "" or one line saying what could not be made.
  [[nodiscard]] std::string start();
  void stop();

  // Start the server (and its publishers) in this one, the readers in the
  // other (InNamespace).
  [[nodiscard]] const NetNamespace& server_side() const { return server_net_; }
  [[nodiscard]] const NetNamespace& client_side() const { return client_net_; }

  struct Counts {
    std::atomic<std::uint64_t> packets{0};  // delivered at the far end
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<std::uint64_t> dropped{0};  // the queue was full
  };
  [[nodiscard]] const Counts& down() const { return down_; }  // server to readers
  [[nodiscard]] const Counts& up() const { return up_; }      // readers to server

 private:
  void run();

  LinkOptions link_;
  NetNamespace server_net_;
  NetNamespace client_net_;
  int server_tun_ = -1;
  int client_tun_ = -1;
  int wake_fd_ = -1;
  Counts down_;
  Counts up_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace sluice::bench
