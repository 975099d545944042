// Owns: RedisProcess, a redis-server that the bench starts itself for the
// cluster scenario, on a free loopback port, in a directory of its own,
// with nothing saved to disk, so that Redis's CPU can be read from /proc
// next to the nodes'.
//
// redis-server cannot be told to pick its own port (--port 0 turns TCP
// off), so the bench asks the kernel for a free one, lets it go, and starts
// Redis on it; should another process take the port first, Redis fails to
// bind, exits before its "Ready to accept connections" line, and the next
// port is tried.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "server_process.hpp"

namespace sluice::bench {

class RedisProcess {
 public:
  RedisProcess() = default;
  ~RedisProcess();  // stops Redis and removes its directory
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // Starts `binary` (redis-server, or a path to it). Returns an error line,
  // or "" once Redis accepts connections.
  [[nodiscard]] std::string start(const std::string& binary);

  [[nodiscard]] std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] pid_t pid() const { return process_.pid(); }

 private:
  ServerProcess process_;
  std::string dir_;
  std::uint16_t port_ = 0;
};

}  // namespace sluice::bench
