#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

namespace sluice::test {

namespace {
using Clock = std::chrono::steady_clock;

int left_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}
}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  if (::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  out_fd_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

bool ChildProcess::read_some(int timeout_ms) {
  pollfd p{out_fd_, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  char chunk[65536];
  const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
  if (n <= 0) return false;
  output_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

bool ChildProcess::read_until_contains(const std::string& needle, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (output_.find(needle) == std::string::npos) {
    if (Clock::now() >= deadline || !read_some(left_ms(deadline))) return false;
  }
  return true;
}

bool ChildProcess::read_to_end(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, left_ms(deadline)) <= 0) return false;
    char chunk[65536];
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n <= 0) return true;
    output_.append(chunk, static_cast<std::size_t>(n));
  }
  return false;
}

void ChildProcess::signal(int sig) {
  if (pid_ > 0 && !exited_) ::kill(pid_, sig);
}

int ChildProcess::wait(std::chrono::milliseconds limit) {
  if (exited_ || pid_ <= 0) return exit_code_;
  // A pidfd becomes readable when the child exits: a wait with a deadline.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd < 0) return -1;
  pollfd p{pidfd, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(limit.count()));
  ::close(pidfd);
  if (ready <= 0) return -1;
  int status = 0;
  if (::waitpid(pid_, &status, 0) != pid_) return -1;
  exited_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_code_;
}

std::string env_path(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace sluice::test
