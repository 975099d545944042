#include "conn/connection.hpp"

#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

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
// turn on its socket event and one when the read queue is served, so the
// loop gets back to its other sockets; and the rest is read without a new
// readiness event, which an edge-triggered loop would never send for bytes
// already waiting.
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

// One end of a socket pair the loop reads as a connection; the test writes
// into the other.
struct Peer {
  explicit Peer(io::Loop& loop, const ConnectionLimits& limits) {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    connection = std::make_unique<CountingConnection>(loop, std::make_unique<transport::PlainTcp>(fds[0]), limits);
    EXPECT_EQ(connection->start(), 0);
  }
  ~Peer() { ::close(fds[1]); }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  // Writes until the socket takes no more: a client that always has bytes.
  void fill() {
    static const std::string kBytes(64 << 10, 'f');
    while (::write(fds[1], kBytes.data(), kBytes.size()) > 0) {
    }
  }
  [[nodiscard]] int unread() const {
    int bytes = 0;
    EXPECT_EQ(::ioctl(fds[0], FIONREAD, &bytes), 0);
    return bytes;
  }

  int fds[2] = {-1, -1};
  std::unique_ptr<CountingConnection> connection;
};

std::size_t received_by(const std::vector<std::unique_ptr<Peer>>& peers) {
  return std::accumulate(peers.begin(), peers.end(), std::size_t{0},
                         [](std::size_t sum, const auto& p) { return sum + p->connection->received; });
}

// 300 connections whose sockets are kept full between ticks, more than the
// 256 events one wait reports. Each tick reads at most the tick's budget
// plus one chunk, however many connections flood; the flooders take their
// turns in order, so every one of them is read within a bounded number of
// ticks; and a request written by a connection that was idle is read on
// the very next tick while every flooder still has bytes waiting. Before
// the tick budget every flooder read a whole turn on every tick (here 300
// turns of 32 KiB, 9.6 MB a tick), and a request waited behind all of it.
TEST(Connection, AFloodOfConnectionsThatAlwaysHaveBytesCannotHoldTheLoop) {
  io::Loop loop;
  constexpr std::size_t kTick = 256 << 10;
  constexpr std::size_t kTurn = 32 << 10;
  loop.reads().set_tick_bytes(kTick);
  const ConnectionLimits limits{.receive_turn = kTurn};
  constexpr std::size_t kFlooders = 300;
  std::vector<std::unique_ptr<Peer>> flood;
  for (std::size_t i = 0; i < kFlooders; ++i) flood.push_back(std::make_unique<Peer>(loop, limits));
  Peer quiet(loop, limits);

  std::size_t ticks = 0;
  auto flood_tick = [&] {
    for (auto& f : flood) f->fill();
    const std::size_t before = received_by(flood);
    loop.run_once(0);
    ++ticks;
    return received_by(flood) - before;
  };
  // The first two ticks (one wait reports 256 events at most) hand every
  // flooder's first event a chunk; from then on they read only in turns.
  for (int i = 0; i < 2; ++i) EXPECT_LE(flood_tick(), kTick + 256 * kReadChunk);
  // Enough ticks for the line to go round: every flooder was read.
  const std::size_t round = kFlooders * kTurn / kTick + 2;
  while (ticks < round) {
    const std::size_t read = flood_tick();
    EXPECT_GT(read, 0u);
    EXPECT_LE(read, kTick + kReadChunk) << "tick " << ticks;
  }
  for (const auto& f : flood) EXPECT_GT(f->connection->received, 0u);

  const std::string request = "POST /pub/news HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
  ASSERT_EQ(::write(quiet.fds[1], request.data(), request.size()), static_cast<ssize_t>(request.size()));
  const std::size_t read = flood_tick();
  EXPECT_EQ(quiet.connection->received, request.size());
  EXPECT_LE(read, kTick + kReadChunk);
  for (const auto& f : flood) EXPECT_GT(f->unread(), 0) << "a flooder ran dry: the test proves nothing";
}

}  // namespace
}  // namespace sluice::conn
