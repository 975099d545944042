// LatencyGate in a Connection on a real loop and real loopback TCP: what it
// holds back from a reader that does not read, what it lets through when
// that reader reads, how a reader that keeps up comes to take whole
// batches, and the fallback on a socket it cannot read.
#include "conn/latency_gate.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "conn/connection.hpp"
#include "conn/gate_checks.hpp"
#include "io/socket.hpp"
#include "loopback_pair.hpp"
#include "transport/plain_tcp.hpp"

namespace sluice::conn {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kPatience = 10s;  // a bound against a hang, not a timing

class QuietConnection final : public Connection {
 public:
  using Connection::Connection;

 protected:
  void on_input(std::string& input) override { input.clear(); }
  void on_closed(CloseReason) override {}
};

// A reader on loopback with a small receive buffer, so that its window is
// exact to the byte, and the server side of it in a Connection.
struct GatedPair : test::LoopbackPair {
  explicit GatedPair(std::chrono::milliseconds grace, int reader_buffer = 4096) : LoopbackPair(reader_buffer) {
    connection = std::make_unique<QuietConnection>(loop, std::make_unique<transport::PlainTcp>(release_sender()),
                                                   ConnectionLimits{});
    EXPECT_EQ(connection->start(), 0);
    EXPECT_TRUE(connection->bound_unread({.window_frames = 1, .grace = grace}, checks,
                                                buf::make_frame(pool, buf::Lane::control, "\n")));
  }
  void send(std::size_t size, char fill) {
    ASSERT_EQ(connection->send_data(buf::make_frame(pool, buf::Lane::data, std::string(size, fill))),
              EnqueueStatus::ok);
  }
  // Runs the loop until `done` holds.
  template <class Done>
  bool run_until(Done done) {
    for (const auto deadline = Clock::now() + kPatience; Clock::now() < deadline;) {
      if (done()) return true;
      loop.run_once(1);
    }
    return done();
  }
  // Reads what is there, without the probes' blank lines.
  std::string read_frames() {
    std::string got;
    char chunk[65536];
    for (ssize_t n; (n = ::recv(reader, chunk, sizeof chunk, MSG_DONTWAIT)) > 0;) got.append(chunk, static_cast<std::size_t>(n));
    std::erase(got, '\n');
    return got;
  }
  [[nodiscard]] const LatencyGate& gate() const { return *connection->latency_gate(); }

  buf::Pool pool{{.block_count = 4096, .block_size = 4096, .reserve = 16}};
  io::Loop loop;
  GateChecks checks{loop};
  std::unique_ptr<QuietConnection> connection;
};

TEST(LatencyGate, LetsOneFrameReachAReaderThatDoesNotRead) {
  GatedPair pair(5ms);
  for (char c = 'a'; c < 'a' + 10; ++c) pair.send(1000, c);
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1000 && pair.gate().holding(); }));
  // However often it looks again, nothing more goes.
  for (int i = 0; i < 50; ++i) pair.loop.run_once(1);
  EXPECT_EQ(pair.connection->queue().pending_data(), 9u);  // held in sluice's queue
  EXPECT_LE(pair.unread_at_reader(), 1000u + 16);     // one frame, and perhaps probes
  EXPECT_GE(pair.unread_at_reader(), 1000u);
}

TEST(LatencyGate, SendsTheNextFrameOnceTheReaderHasReadTheLast) {
  GatedPair pair(5ms);
  for (char c = 'a'; c < 'a' + 4; ++c) pair.send(1000, c);
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1000; }));
  // The reader reads well after its kernel acknowledged the frame, so that
  // only the gate's probe can make it tell.
  ASSERT_TRUE(pair.run_until([&] { return pair.gate().holding(); }));
  for (int i = 0; i < 20; ++i) pair.loop.run_once(1);
  EXPECT_EQ(pair.read_frames(), std::string(1000, 'a'));
  ASSERT_TRUE(pair.run_until([&] { return pair.unread_at_reader() >= 1000; }));
  EXPECT_EQ(pair.read_frames(), std::string(1000, 'b'));
  EXPECT_EQ(pair.connection->queue().pending_data(), 2u);
}

TEST(LatencyGate, AReaderThatKeepsUpComesToTakeWholeBatches) {
  GatedPair pair(1000ms, 0);  // the kernel's default, autotuned buffer
  std::atomic<bool> stop{false};
  std::string received;
  std::atomic<std::size_t> frame_bytes{0};
  std::thread reader([&] {
    char chunk[65536];
    while (!stop.load()) {
      pollfd p{pair.reader, POLLIN, 0};
      if (::poll(&p, 1, 10) <= 0) continue;
      const ssize_t n = ::recv(pair.reader, chunk, sizeof chunk, 0);
      if (n <= 0) continue;
      const std::string_view got(chunk, static_cast<std::size_t>(n));
      received.append(got);
      frame_bytes += got.size() - static_cast<std::size_t>(std::count(got.begin(), got.end(), '\n'));
    }
  });
  std::string expected;
  for (int batch = 0; batch < 20; ++batch) {
    for (int i = 0; i < 200; ++i) {
      const char c = static_cast<char>('a' + (batch * 200 + i) % 26);
      pair.send(100, c);
      expected.append(100, c);
    }
    ASSERT_TRUE(pair.run_until([&] { return pair.connection->queue().empty(); }));
  }
  ASSERT_TRUE(pair.run_until([&] { return frame_bytes.load() == expected.size(); }));
  stop = true;
  reader.join();
  std::erase(received, '\n');
  EXPECT_TRUE(received == expected) << "the frames arrived changed or out of order";
  // It came to take a whole batch at once.
  EXPECT_GE(pair.gate().grown_allowance(), 200u * 100);
}

TEST(LatencyGate, IsNotPutOnASocketTheKernelSaysNothingAbout) {
  io::Loop loop;
  GateChecks checks(loop);
  buf::Pool pool({.block_count = 16, .block_size = 4096, .reserve = 4});
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  QuietConnection connection(loop, std::make_unique<transport::PlainTcp>(fds[0]), {});
  ASSERT_EQ(connection.start(), 0);
  EXPECT_FALSE(connection.bound_unread({}, checks, buf::make_frame(pool, buf::Lane::control, "\n")));
  EXPECT_EQ(connection.latency_gate(), nullptr);
  // Without one, a flush writes everything, as before.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(connection.send_data(buf::make_frame(pool, buf::Lane::data, "frame")), EnqueueStatus::ok);
  }
  loop.run_once(0);
  EXPECT_TRUE(connection.queue().empty());
  char got[64];
  EXPECT_EQ(::read(fds[1], got, sizeof got), 15);
  ::close(fds[1]);
}

}  // namespace
}  // namespace sluice::conn
