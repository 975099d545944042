// Owns: RedisServer, a real redis-server that a test starts on a free
// loopback port, in a directory of its own, with nothing saved to disk; and
// the faults tests put it through: stop it (SIGSTOP) and let it go on
// (SIGCONT), kill it, start it again empty on the same port.
//
// redis-server cannot be told to pick its own port (--port 0 turns TCP
// off), so the test asks the kernel for a free one, lets it go, and starts
// Redis on it; should another process take the port first, Redis fails to
// bind and a new port is tried. Readiness is Redis's own "Ready to accept
// connections" line, then a PING answered by the process that was started
// (INFO's process_id), never a sleep.
#pragma once

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace sluice::test {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisServer {
 public:
  // Starts at once; ok() says whether it is serving, error() why not.
  RedisServer();
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  [[nodiscard]] bool ok() const { return child_ != nullptr && error_.empty(); }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

  void pause();   // SIGSTOP: the port still accepts TCP, nothing answers
  void resume();  // SIGCONT
  // SIGKILL, and waits for the exit.
  bool kill();
  // Kills the running server if any and starts an empty one on the same
  // port. False (with error()) if it could not.
  bool restart();

  // Runs one command over a fresh blocking connection (test set-up and
  // checks); nullptr if Redis did not answer within a second.
  ReplyPtr command(const std::vector<std::string>& argv) const;

 private:
  bool start_on(std::uint16_t port);
  bool answers_as_itself() const;

  std::string dir_;
  std::uint16_t port_ = 0;
  std::unique_ptr<ChildProcess> child_;
  int pid_ = -1;
  std::string error_;
};

}  // namespace sluice::test
