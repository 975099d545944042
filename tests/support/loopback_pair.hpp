// Owns: LoopbackPair, a connected TCP pair on 127.0.0.1 for tests that read
// the kernel's own figures about a connection. The reader's receive buffer
// is set before it connects, so the window it offers is small and
// unscaled; the sender is the accepted side, non-blocking, Nagle off.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>

#include "io/socket.hpp"

namespace sluice::test {

// How long a test waits on a pair's sockets: a bound against a hang, not a timing.
inline constexpr std::chrono::seconds kPatience{10};

struct LoopbackPair {
  // `reader_buffer` 0 leaves the kernel's default, autotuned buffer.
  explicit LoopbackPair(int reader_buffer) {
    const int listener = io::listen_tcp({"127.0.0.1", 0}, {});
    EXPECT_GE(listener, 0);
    reader = ::socket(AF_INET, SOCK_STREAM, 0);
    if (reader_buffer > 0) {
      EXPECT_EQ(io::set_receive_buffer(reader, reader_buffer), 0);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(io::local_port(listener));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(reader, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    pollfd pending{listener, POLLIN, 0};
    EXPECT_EQ(::poll(&pending, 1, 10000), 1);
    sender = io::accept_nonblocking(listener);
    EXPECT_GE(sender, 0);
    io::set_nodelay(sender, true);
    ::close(listener);
  }
  ~LoopbackPair() {
    if (sender >= 0) ::close(sender);
    if (reader >= 0) ::close(reader);
  }
  LoopbackPair(const LoopbackPair&) = delete;
  LoopbackPair& operator=(const LoopbackPair&) = delete;

  // Hands the sender to an owner that closes it.
  [[nodiscard]] int release_sender() {
    const int fd = sender;
    sender = -1;
    return fd;
  }
  // Bytes waiting in the reader's receive buffer.
  [[nodiscard]] std::size_t unread_at_reader() const {
    int queued = 0;
    EXPECT_EQ(::ioctl(reader, SIOCINQ, &queued), 0);
    return static_cast<std::size_t>(queued);
  }

  int sender = -1;
  int reader = -1;
};

}  // namespace sluice::test
