// Owns: ChildProcess, a program the test starts (sluiced, curl) with its
// stdout and stderr read through one pipe, and its exit status.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace sluice::test {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();  // kills the child if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads output until it contains `needle`; false on EOF or timeout.
  bool read_until_contains(const std::string& needle, std::chrono::milliseconds limit);
  // Reads output until the child closes it; false on timeout.
  bool read_to_end(std::chrono::milliseconds limit);
  const std::string& output() const { return output_; }

  void signal(int sig);
  [[nodiscard]] pid_t pid() const { return pid_; }
  // Waits for the exit and returns the exit code (128+signal if killed),
  // or -1 on timeout.
  int wait(std::chrono::milliseconds limit);

 private:
  bool read_some(int timeout_ms);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
  std::string output_;
};

// The path of a built binary handed to tests through the environment.
std::string env_path(const char* name);

}  // namespace sluice::test
