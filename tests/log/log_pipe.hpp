// Owns: LogPipe, a pipe the log tests point an Output at, and read back.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace sluice::log::test {

class LogPipe {
 public:
  LogPipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
      read_end_ = fds[0];
      write_end_ = fds[1];
    }
  }
  ~LogPipe() {
    ::close(read_end_);
    ::close(write_end_);
  }
  LogPipe(const LogPipe&) = delete;
  LogPipe& operator=(const LogPipe&) = delete;

  [[nodiscard]] int write_end() const { return write_end_; }
  // Everything written so far.
  std::string take() {
    std::string out;
    char chunk[65536];
    for (ssize_t n; (n = ::read(read_end_, chunk, sizeof chunk)) > 0;) out.append(chunk, static_cast<std::size_t>(n));
    return out;
  }

 private:
  int read_end_ = -1;
  int write_end_ = -1;
};

}  // namespace sluice::log::test
