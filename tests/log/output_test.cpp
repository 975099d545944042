#include "log/output.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace sluice::log {
namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      read_end = fds[0];
      write_end = fds[1];
    }
  }
  ~Pipe() {
    ::close(read_end);
    ::close(write_end);
  }
  std::string drain() const {
    std::string out;
    const int flags = ::fcntl(read_end, F_GETFL);
    ::fcntl(read_end, F_SETFL, flags | O_NONBLOCK);
    char chunk[65536];
    for (ssize_t n; (n = ::read(read_end, chunk, sizeof chunk)) > 0;) out.append(chunk, static_cast<std::size_t>(n));
    ::fcntl(read_end, F_SETFL, flags);
    return out;
  }
};

TEST(LogOutput, APipeIsOpenedAgainAsItsOwnNonBlockingDescription) {
  Pipe pipe;
  const int flags_before = ::fcntl(pipe.write_end, F_GETFL);
  Output out(pipe.write_end);
  EXPECT_EQ(out.mode(), Output::Mode::reopened);
  // The inherited description, which others may share, is left blocking.
  EXPECT_EQ(::fcntl(pipe.write_end, F_GETFL), flags_before);
  EXPECT_EQ(flags_before & O_NONBLOCK, 0);
  EXPECT_TRUE(out.write_line("level=info msg=hello\n"));
  EXPECT_EQ(pipe.drain(), "level=info msg=hello\n");
}

// Nobody reads: the pipe fills, and further lines are dropped and counted
// at once instead of blocking (the test would hang, not fail, otherwise).
TEST(LogOutput, AFullPipeDropsAndCountsInsteadOfBlocking) {
  Pipe pipe;
  Output out(pipe.write_end);
  const std::string line = std::string(1000, 'x') + "\n";
  std::size_t written = 0;
  while (out.write_line(line)) ++written;
  EXPECT_GE(written, 16u);  // a pipe holds 64 KiB by default
  EXPECT_EQ(out.dropped(), 1u);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(out.write_line(line));
  EXPECT_EQ(out.dropped(), 11u);
  // Once the reader catches up, lines flow again, whole.
  const std::string drained = pipe.drain();
  EXPECT_EQ(drained.size(), written * line.size());
  EXPECT_TRUE(out.write_line("after\n"));
  EXPECT_EQ(pipe.drain(), "after\n");
}

TEST(LogOutput, AUnixSocketIsWrittenWithoutWaiting) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  Output out(fds[0]);
  EXPECT_EQ(out.mode(), Output::Mode::socket);
  const std::string line = std::string(2000, 'y') + "\n";
  std::size_t written = 0;
  while (out.write_line(line) && written < 100000) ++written;
  EXPECT_LT(written, 100000u);
  EXPECT_EQ(out.dropped(), 1u);
  // What arrived is whole lines only.
  std::string got;
  char chunk[65536];
  for (ssize_t n; (n = ::recv(fds[1], chunk, sizeof chunk, MSG_DONTWAIT)) > 0;) got.append(chunk, static_cast<std::size_t>(n));
  EXPECT_EQ(got.size(), written * line.size());
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(LogOutput, ARegularFileIsWrittenDirectly) {
  char path[] = "/tmp/sluice-log-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  {
    Output out(fd);
    EXPECT_EQ(out.mode(), Output::Mode::direct);
    EXPECT_TRUE(out.write_line("one\n"));
    EXPECT_TRUE(out.write_line("two\n"));
  }
  char text[16] = {};
  EXPECT_EQ(::pread(fd, text, sizeof text, 0), 8);
  EXPECT_STREQ(text, "one\ntwo\n");
  ::close(fd);
  ::unlink(path);
}

// Several threads log at once: every line arrives whole, none interleaved.
TEST(LogOutput, LinesFromSeveralThreadsNeverInterleave) {
  Pipe pipe;
  Output out(pipe.write_end);
  constexpr int kThreads = 4;
  constexpr int kLines = 200;
  std::string received;
  std::thread reader([&] {
    char chunk[65536];
    for (ssize_t n; received.size() < std::size_t{kThreads} * kLines * 3001 &&
                    (n = ::read(pipe.read_end, chunk, sizeof chunk)) > 0;) {
      received.append(chunk, static_cast<std::size_t>(n));
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&out, t] {
      const std::string line = std::string(3000, static_cast<char>('a' + t)) + "\n";
      for (int i = 0; i < kLines;) i += out.write_line(line) ? 1 : 0;  // a dropped line is retried
    });
  }
  for (std::thread& w : writers) w.join();
  reader.join();
  std::size_t lines = 0;
  for (std::size_t at = 0; at < received.size(); at += 3001, ++lines) {
    const char c = received[at];
    ASSERT_EQ(received.find_first_not_of(c, at), at + 3000) << "line " << lines << " is mixed";
    ASSERT_EQ(received[at + 3000], '\n');
  }
  EXPECT_EQ(lines, std::size_t{kThreads} * kLines);
}

// A TCP socket may take part of a line. Whatever happens, the reader never
// sees two lines run together: each line it reads is a whole line or the
// start of one.
TEST(LogOutput, ALineCutShortIsEndedBeforeTheNext) {
  const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  ASSERT_EQ(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(server, 1), 0);
  ASSERT_EQ(::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int small = 4096;
  ::setsockopt(client, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const int peer = ::accept(server, nullptr, nullptr);
  ::setsockopt(peer, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);

  Output out(client);
  std::set<std::string> lines;
  for (int i = 0; i < 300; ++i) {
    std::string line = "line-" + std::to_string(i) + "-" + std::string(700, 'z') + "\n";
    lines.insert(line.substr(0, line.size() - 1));
    out.write_line(line);
  }
  EXPECT_GT(out.dropped(), 0u);
  // Read all of it, then one more line once there is room: it must start a
  // line of its own even if the last line before it was cut.
  std::string got;
  char chunk[65536];
  const auto read_all = [&] {
    for (ssize_t n; (n = ::recv(peer, chunk, sizeof chunk, MSG_DONTWAIT)) > 0;) got.append(chunk, static_cast<std::size_t>(n));
  };
  read_all();
  lines.insert("final");
  // The socket takes more once the reader's window update comes back.
  for (int tries = 0; !out.write_line("final\n"); ++tries) {
    ASSERT_LT(tries, 1000);
    pollfd p{peer, POLLIN, 0};
    ::poll(&p, 1, 10);
    read_all();
  }
  while (got.size() < 6 || got.compare(got.size() - 6, 6, "final\n") != 0) {
    pollfd p{peer, POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 10000), 1);
    read_all();
  }
  for (std::size_t start = 0, end; (end = got.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string piece = got.substr(start, end - start);
    if (piece.empty()) continue;
    const auto it = lines.lower_bound(piece);
    ASSERT_TRUE(it != lines.end() && it->compare(0, piece.size(), piece) == 0) << "not one line: " << piece.substr(0, 40);
  }
  for (const int fd : {server, client, peer}) ::close(fd);
}

}  // namespace
}  // namespace sluice::log
