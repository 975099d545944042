// The link emulator is a measuring instrument: these check that it holds
// the rate and the delay it was given, and that a shallow client side
// carries no more than the client's window.
#include "link_proxy.hpp"

#include <gtest/gtest.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "clock.hpp"
#include "net.hpp"

namespace sluice::bench {
namespace {

// Accepts one connection and reads it to EOF, noting when the first and the
// last byte arrived.
class Sink {
 public:
  Sink() : listen_fd_(io::listen_tcp({"127.0.0.1", 0}, {})) {
    io::set_nonblocking(listen_fd_, false);
    thread_ = std::thread([this] { run(); });
  }
  ~Sink() {
    wait();
    ::close(listen_fd_);
  }
  io::Endpoint endpoint() const { return {"127.0.0.1", io::local_port(listen_fd_)}; }
  // Returns once the connection has been read to EOF (or timed out).
  void wait() {
    if (thread_.joinable()) thread_.join();
  }

  std::uint64_t bytes = 0;
  std::uint64_t first_ns = 0;
  std::uint64_t last_ns = 0;

 private:
  void run() {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    const timeval tv{30, 0};  // bounds the test if the proxy never delivers
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char chunk[65536];
    for (ssize_t n; (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0;) {
      last_ns = now_ns();
      if (bytes == 0) first_ns = last_ns;
      bytes += static_cast<std::uint64_t>(n);
    }
    ::close(fd);
  }

  int listen_fd_;
  std::thread thread_;
};

// Accepts one connection and writes to it until told to stop, as much as
// the connection takes.
class Source {
 public:
  Source() : listen_fd_(io::listen_tcp({"127.0.0.1", 0}, {})) {
    thread_ = std::thread([this] { run(); });
  }
  ~Source() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  io::Endpoint endpoint() const { return {"127.0.0.1", io::local_port(listen_fd_)}; }

  std::atomic<std::uint64_t> written{0};

 private:
  void run() {
    int fd = -1;
    while (!stop_ && (fd = io::accept_nonblocking(listen_fd_)) < 0) std::this_thread::yield();
    const std::string chunk(16384, 'x');
    while (!stop_) {
      const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) written += static_cast<std::uint64_t>(n);
      else std::this_thread::yield();
    }
    if (fd >= 0) ::close(fd);
  }

  int listen_fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(LinkOptions, ParsesRatesDelaysAndWindows) {
  LinkOptions link;
  ASSERT_EQ(parse_link("rate=3mbit,delay=20ms,window=5760", link), "");
  EXPECT_DOUBLE_EQ(link.rate, 375000);
  EXPECT_EQ(link.delay_ns, 20'000'000u);
  EXPECT_EQ(link.window, 5760u);
  ASSERT_EQ(parse_link("rate=1MB,window=64k,delay=1s", link), "");
  EXPECT_DOUBLE_EQ(link.rate, 1e6);
  EXPECT_EQ(link.window, 65536u);
  EXPECT_EQ(link.delay_ns, 1'000'000'000u);
  EXPECT_NE(parse_link("rate=fast", link), "");
  EXPECT_NE(parse_link("delay=20", link), "");
  EXPECT_NE(parse_link("bandwidth=3mbit", link), "");
  EXPECT_FALSE(link.shallow);
  ASSERT_EQ(parse_link("rate=3mbit,client=shallow", link), "");
  EXPECT_TRUE(link.shallow);
  EXPECT_NE(parse_link("client=shallower", link), "");
}

TEST(LinkOptions, ParsesThePacketModeAndRefusesTheOtherModesKeys) {
  LinkOptions link;
  ASSERT_EQ(parse_link("rate=3mbit,delay=20ms,mode=packet,queue=32k", link), "");
  EXPECT_EQ(link.mode, LinkMode::packet);
  EXPECT_EQ(link.queue, 32768u);
  EXPECT_NE(describe_link(link).find("packet link"), std::string::npos);
  EXPECT_NE(parse_link("mode=datagram", link), "");
  LinkOptions packet_window;
  EXPECT_NE(parse_link("mode=packet,window=8k", packet_window), "");
  LinkOptions packet_shallow;
  EXPECT_NE(parse_link("client=shallow,mode=packet", packet_shallow), "");
  LinkOptions proxy_queue;
  EXPECT_NE(parse_link("rate=3mbit,queue=64k", proxy_queue), "");
  LinkOptions proxy;
  ASSERT_EQ(parse_link("rate=3mbit", proxy), "");
  EXPECT_EQ(proxy.mode, LinkMode::proxy);
  EXPECT_NE(describe_link(proxy).find("TCP proxy"), std::string::npos);
}

// A client that reads nothing, behind a 4 KiB buffer: the server writes as
// much as it can, and the emulator hands the client side no more than the
// client's window; the rest stays where the server can see it.
TEST(LinkProxy, AShallowClientSideCarriesNoMoreThanTheClientsWindow) {
  Source source;
  LinkOptions link;
  ASSERT_EQ(parse_link("client=shallow", link), "");
  LinkProxy proxy(source.endpoint(), link);
  ASSERT_EQ(proxy.start(), 0);
  const int fd = dial(proxy.endpoint(), 4096);
  ASSERT_GE(fd, 0);
  const auto arrived = [fd] {
    int queued = 0;
    return ::ioctl(fd, SIOCINQ, &queued) == 0 && queued > 0;
  };
  for (const std::uint64_t deadline = now_ns() + 10 * kNsPerSec; !arrived() && now_ns() < deadline;) {
    std::this_thread::yield();
  }
  ASSERT_TRUE(arrived());
  // However long the server goes on writing: a deep client side (the
  // emulator without client=shallow) takes megabytes here.
  std::uint64_t most = 0;
  for (const std::uint64_t until = now_ns() + 200 * kNsPerMs; now_ns() < until;) {
    most = std::max(most, proxy.bytes_down());
    std::this_thread::yield();
  }
  EXPECT_GT(source.written.load(), 65536u);
  EXPECT_LE(most, 8192u);
  ::close(fd);
}

TEST(LinkProxy, HoldsItsRateWithinTenPercent) {
  Sink sink;
  LinkOptions link;
  ASSERT_EQ(parse_link("rate=4mbit,window=16k", link), "");
  LinkProxy proxy(sink.endpoint(), link);
  ASSERT_EQ(proxy.start(), 0);
  const int fd = dial(proxy.endpoint());
  ASSERT_GE(fd, 0);
  const std::string block(1'500'000, 'x');  // 3 s at 4 Mbit/s
  ASSERT_TRUE(write_all(fd, block));
  ::shutdown(fd, SHUT_WR);
  sink.wait();
  ::close(fd);
  ASSERT_EQ(sink.bytes, block.size());
  const double rate = static_cast<double>(sink.bytes) / (static_cast<double>(sink.last_ns - sink.first_ns) / 1e9);
  EXPECT_NEAR(rate, 500'000, 50'000);
}

TEST(LinkProxy, DelaysEveryByteByAtLeastTheOneWayDelay) {
  Sink sink;
  LinkOptions link;
  ASSERT_EQ(parse_link("delay=50ms", link), "");
  LinkProxy proxy(sink.endpoint(), link);
  ASSERT_EQ(proxy.start(), 0);
  const int fd = dial(proxy.endpoint());
  ASSERT_GE(fd, 0);
  const std::uint64_t sent = now_ns();
  ASSERT_TRUE(write_all(fd, "ping"));
  ::shutdown(fd, SHUT_WR);
  sink.wait();
  ::close(fd);
  ASSERT_EQ(sink.bytes, 4u);
  EXPECT_GE(sink.first_ns - sent, 50'000'000u);
}

}  // namespace
}  // namespace sluice::bench
