// The link emulator is a measuring instrument: these check that it holds
// the rate and the delay it was given.
#include "link_proxy.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

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
