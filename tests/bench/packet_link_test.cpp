// The packet link carries a real TCP connection between its two
// namespaces, through its delay: a reader on the far side reaches the
// server's own 127.0.0.1 only over the link, and each round trip takes the
// delay twice. Skipped where the bench may not make namespaces or tun
// devices (not root, no /dev/net/tun).
#include "packet_link.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "clock.hpp"
#include "net.hpp"
#include "net_namespace.hpp"

namespace sluice::bench {
namespace {

constexpr std::uint64_t kDelayNs = 30 * kNsPerMs;

// Why this machine cannot run the link, or "" when it can.
std::string missing_permission() {
  if (::access("/dev/net/tun", R_OK | W_OK) != 0) return "no usable /dev/net/tun";
  std::string error;
  if (!NetNamespace::make(error).valid()) return error;
  return "";
}

// Starts `link`; "" when it runs, else why not. A refusal for want of
// rights (a container that may make namespaces but not devices) is a skip,
// any other failure is the link's.
std::string start_or_skip(PacketLink& link, bool& skip) {
  std::string error = link.start();
  skip = error.find("not permitted") != std::string::npos || error.find("denied") != std::string::npos;
  return error;
}

// Echoes what one connection sends until it ends.
void echo_one(int listen_fd) {
  const int fd = ::accept(listen_fd, nullptr, nullptr);
  if (fd < 0) return;
  const timeval tv{10, 0};  // bounds the test if the link never delivers
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char chunk[256];
  for (ssize_t n; (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;) {
    if (!write_all(fd, std::string_view(chunk, static_cast<std::size_t>(n)))) break;
  }
  ::close(fd);
}

TEST(PacketLink, CarriesTcpBetweenItsNamespacesThroughTheDelay) {
  if (const std::string why = missing_permission(); !why.empty()) GTEST_SKIP() << why;
  LinkOptions link;
  ASSERT_EQ(parse_link("rate=10mbit,delay=30ms,mode=packet", link), "");
  PacketLink packet_link(link);
  bool skip = false;
  const std::string error = start_or_skip(packet_link, skip);
  if (skip) GTEST_SKIP() << error;
  ASSERT_EQ(error, "");

  int listen_fd = -1;
  {
    InNamespace in(&packet_link.server_side());
    ASSERT_TRUE(in.entered());
    listen_fd = io::listen_tcp({"127.0.0.1", 0}, {});
  }
  ASSERT_GE(listen_fd, 0);
  ASSERT_EQ(io::set_nonblocking(listen_fd, false), 0);
  const io::Endpoint server{"127.0.0.1", io::local_port(listen_fd)};
  std::thread echo([listen_fd] { echo_one(listen_fd); });

  // From the readers' side the server's loopback address is the link's far end.
  const std::uint64_t dialled = now_ns();
  int fd = -1;
  {
    InNamespace in(&packet_link.client_side());
    ASSERT_TRUE(in.entered());
    fd = dial(server);
  }
  const std::uint64_t connected = now_ns();
  ASSERT_GE(fd, 0) << std::strerror(-fd);
  const timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const std::string ping(1000, 'p');
  ASSERT_TRUE(write_all(fd, ping));
  std::string back;
  char chunk[256];
  for (ssize_t n; back.size() < ping.size() && (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;) {
    back.append(chunk, static_cast<std::size_t>(n));
  }
  const std::uint64_t echoed = now_ns();
  ::close(fd);
  echo.join();
  ::close(listen_fd);

  EXPECT_EQ(back, ping);
  // The handshake and the echo each crossed the link twice.
  EXPECT_GE(connected - dialled, 2 * kDelayNs);
  EXPECT_GE(echoed - connected, 2 * kDelayNs);
  // Every byte went through the link: the SYN, the data and its echo, the
  // acknowledgements; the data alone is 1000 bytes each way.
  EXPECT_GE(packet_link.up().packets.load(), 3u);
  EXPECT_GE(packet_link.down().packets.load(), 2u);
  EXPECT_GE(packet_link.up().bytes.load(), ping.size());
  EXPECT_GE(packet_link.down().bytes.load(), ping.size());
  EXPECT_EQ(packet_link.down().dropped.load(), 0u);
}

TEST(PacketLink, TheReadersSideHasNoLoopbackOfItsOwn) {
  if (const std::string why = missing_permission(); !why.empty()) GTEST_SKIP() << why;
  LinkOptions link;
  ASSERT_EQ(parse_link("delay=1ms,mode=packet", link), "");
  PacketLink packet_link(link);
  bool skip = false;
  const std::string error = start_or_skip(packet_link, skip);
  if (skip) GTEST_SKIP() << error;
  ASSERT_EQ(error, "");
  // A port nobody listens on in the server's namespace: refused there, after
  // the SYN crossed the link, not by a listener of the bench's own namespace.
  int port_holder = io::listen_tcp({"127.0.0.1", 0}, {});
  ASSERT_GE(port_holder, 0);
  const io::Endpoint here{"127.0.0.1", io::local_port(port_holder)};
  int fd = 0;
  {
    InNamespace in(&packet_link.client_side());
    ASSERT_TRUE(in.entered());
    fd = dial(here);
  }
  ::close(port_holder);
  EXPECT_EQ(fd, -ECONNREFUSED);
  EXPECT_GE(packet_link.up().packets.load(), 1u);
  EXPECT_GE(packet_link.down().packets.load(), 1u);  // the reset
}

}  // namespace
}  // namespace sluice::bench
