#include "conn/connection.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "transport/plain_tcp.hpp"

namespace sluice::conn {
namespace {

// Takes every byte it is given and counts them.
class CountingConnection final : public Connection {
 public:
  using Connection::Connection;
  std::size_t received = 0;

 protected:
  void on_input(std::string& input) override {
    received += input.size();
    input.clear();
  }
  void on_closed(CloseReason) override {}
};

// A client whose bytes are all there at once is read a turn at a time, one
// turn per socket event and one per deferred walk, so the loop gets back to
// its other sockets; and the rest is read without a new readiness event,
// which an edge-triggered loop would never send for bytes already waiting.
TEST(Connection, AClientThatKeepsItsSocketFullIsReadInTurns) {
  io::Loop loop;
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  constexpr std::size_t kTurn = 16 * 1024;
  CountingConnection connection(loop, std::make_unique<transport::PlainTcp>(fds[0]), {.receive_turn = kTurn});
  ASSERT_EQ(connection.start(), 0);
  const std::string bytes(6 * kTurn, 'x');
  ASSERT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));

  loop.run_once(0);
  EXPECT_GT(connection.received, 0u);
  EXPECT_LE(connection.received, 2 * kTurn);
  int ticks = 1;
  for (; connection.received < bytes.size() && ticks < 100; ++ticks) loop.run_once(0);
  EXPECT_EQ(connection.received, bytes.size());
  EXPECT_GE(ticks, 3);
  ::close(fds[1]);
}

}  // namespace
}  // namespace sluice::conn
