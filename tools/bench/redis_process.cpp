#include "redis_process.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace sluice::bench {

namespace {

constexpr int kPortAttempts = 8;

// A port the kernel had free a moment ago on 127.0.0.1; 0 if none.
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  std::uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

RedisProcess::~RedisProcess() {
  process_.stop();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

std::string RedisProcess::start(const std::string& binary) {
  std::string pattern = (std::filesystem::temp_directory_path() / "sluice-bench-redis-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return "cannot make a directory for redis-server";
  dir_ = pattern;
  std::string error;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    process_.stop();
    port_ = free_port();
    if (port_ == 0) return "no free loopback port for redis-server";
    error = process_.start_until(binary + " --port " + std::to_string(port_) + " --bind 127.0.0.1 --dir " + dir_ +
                                     " --save '' --appendonly no --daemonize no --loglevel notice --logfile ''",
                                 "Ready to accept connections");
    if (error.empty()) return "";
  }
  return "redis-server: " + error;
}

}  // namespace sluice::bench
