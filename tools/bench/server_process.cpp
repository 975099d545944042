#include "server_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "clock.hpp"

extern char** environ;

namespace sluice::bench {

namespace {
constexpr std::string_view kBanner = "listening on ";
constexpr std::uint64_t kBannerWaitNs = 10 * kNsPerSec;

bool wait_exit(pid_t pid, std::uint64_t limit_ns) {
  const std::uint64_t deadline = now_ns() + limit_ns;
  while (now_ns() < deadline) {
    if (::waitpid(pid, nullptr, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}
}  // namespace

ServerProcess::~ServerProcess() { stop(); }

std::string ServerProcess::start(const std::string& command) {
  if (!spawn(command)) return "cannot start: " + command;
  std::string output;
  if (!read_until_line(kBanner, output)) return "no 'listening on HOST:PORT' from: " + command + "\n" + output;
  const std::size_t at = output.find(kBanner) + kBanner.size();
  if (!io::parse_endpoint(output.substr(at, output.find('\n', at) - at), endpoint_)) {
    return "no 'listening on HOST:PORT' from: " + command + "\n" + output;
  }
  return "";
}

std::string ServerProcess::start_until(const std::string& command, std::string_view ready) {
  if (!spawn(command)) return "cannot start: " + command;
  std::string output;
  if (!read_until_line(ready, output)) return "no '" + std::string(ready) + "' from: " + command + "\n" + output;
  return "";
}

bool ServerProcess::spawn(const std::string& command) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  const std::string line = "exec " + command;
  std::vector<char*> argv = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), const_cast<char*>(line.c_str()),
                             nullptr};
  const pid_t bench = ::getpid();
  // fork rather than posix_spawn, for the one call between them: the
  // server is sent SIGTERM when the bench ends however it ends (SIGKILL
  // included), so that none is left holding its port, or under --link
  // mode=packet the link's namespace. Only async-signal-safe calls follow
  // in the child.
  pid_ = ::fork();
  if (pid_ == 0) {
    // A group of its own, which stop() signals whole: a command that
    // wraps the server (perf record, perf stat, a shell) would otherwise
    // exit on the signal and leave the server inside running on a core.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != bench) ::_exit(127);  // the bench ended before the call
    if (::dup2(fds[1], 1) < 0) ::_exit(127);  // the copy is not close-on-exec
    ::execve("/bin/sh", argv.data(), environ);
    ::_exit(127);
  }
  ::close(fds[1]);
  out_fd_ = fds[0];
  if (pid_ > 0) ::setpgid(pid_, pid_);  // as the child does: whichever runs first
  return pid_ > 0;
}

// Reads the output until a whole line holding `marker` has come.
bool ServerProcess::read_until_line(std::string_view marker, std::string& output) {
  const std::uint64_t deadline = now_ns() + kBannerWaitNs;
  while (output.find(marker) == std::string::npos || output.find('\n', output.find(marker)) == std::string::npos) {
    const std::uint64_t now = now_ns();
    pollfd p{out_fd_, POLLIN, 0};
    if (now >= deadline || ::poll(&p, 1, static_cast<int>((deadline - now) / kNsPerMs) + 1) <= 0) return false;
    char chunk[4096];
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n <= 0) return false;
    output.append(chunk, static_cast<std::size_t>(n));
  }
  return true;
}

void ServerProcess::stop() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGTERM);
    if (!wait_exit(pid_, 3 * kNsPerSec)) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
}

}  // namespace sluice::bench
