// Owns: ServerProcess, a server under test that the bench starts itself, so
// that every server of a comparison runs on the same machine in the same
// run. The command runs under /bin/sh (so `taskset -c 0 ...` works) and must
// print "listening on HOST:PORT" on stdout, as sluiced and every peer in
// bench/peers do with --listen 127.0.0.1:0.
//
// The server gets SIGTERM when the thread that started it ends (the
// kernel's parent-death signal follows the thread, not the process): start
// it from a thread that outlives it, as the scenarios do from the main one,
// and it cannot outlive the bench, however the bench ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "io/socket.hpp"

namespace sluice::bench {

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();  // stop()
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts `command` and waits up to 10 s for its banner. Returns an error
  // line, or "" once the server listens.
  [[nodiscard]] std::string start(const std::string& command);
  // Starts `command` and waits up to 10 s for a line of its output that
  // holds `ready` (for a program with a banner of its own, such as
  // redis-server's "Ready to accept connections"); endpoint() stays unset.
  [[nodiscard]] std::string start_until(const std::string& command, std::string_view ready);
  // SIGTERM to the command and every process it started (its process
  // group), then SIGKILL if the command has not exited in 3 s.
  void stop();

  [[nodiscard]] io::Endpoint endpoint() const { return endpoint_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  bool spawn(const std::string& command);
  bool read_until_line(std::string_view marker, std::string& output);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  io::Endpoint endpoint_;
};

}  // namespace sluice::bench
