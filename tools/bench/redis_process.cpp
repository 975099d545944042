#include "redis_process.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "free_port.hpp"

namespace sluice::bench {

namespace {

constexpr int kPortAttempts = 8;

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
