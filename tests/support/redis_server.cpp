#include "redis_server.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace sluice::test {

namespace {

using namespace std::chrono_literals;

constexpr int kPortAttempts = 8;

// A port the kernel had free a moment ago on 127.0.0.1.
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
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

std::string redis_binary() {
  const char* path = std::getenv("REDIS_SERVER");
  return path != nullptr ? path : "redis-server";
}

}  // namespace

RedisServer::RedisServer() {
  std::string pattern = (std::filesystem::temp_directory_path() / "sluice-redis-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    error_ = "cannot make a temporary directory";
    return;
  }
  dir_ = pattern;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    if (start_on(free_port())) return;
  }
}

RedisServer::~RedisServer() {
  child_.reset();  // SIGKILL and reap
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

bool RedisServer::start_on(std::uint16_t port) {
  child_.reset();
  port_ = port;
  child_ = std::make_unique<ChildProcess>(std::vector<std::string>{
      redis_binary(), "--port", std::to_string(port), "--bind", "127.0.0.1", "--dir", dir_, "--save", "",
      "--appendonly", "no", "--daemonize", "no", "--loglevel", "notice", "--logfile", ""});
  pid_ = child_->pid();
  if (pid_ <= 0) {
    error_ = "cannot start " + redis_binary();
    return false;
  }
  // Past the line, the port is bound and the dataset loaded.
  if (!child_->read_until_contains("Ready to accept connections", 10s)) {
    error_ = "redis-server on port " + std::to_string(port) + " did not start: " + child_->output();
    return false;
  }
  if (!answers_as_itself()) {
    error_ = "port " + std::to_string(port) + " is answered by another process";
    return false;
  }
  error_.clear();
  return true;
}

// The PING must reach the process started here, not whoever else may hold
// the port.
bool RedisServer::answers_as_itself() const {
  const ReplyPtr info = command({"INFO", "server"});
  if (info == nullptr || info->type != REDIS_REPLY_STRING) return false;
  const std::string text(info->str, info->len);
  return text.find("process_id:" + std::to_string(pid_) + "\r\n") != std::string::npos;
}

void RedisServer::pause() {
  if (child_) child_->signal(SIGSTOP);
}

void RedisServer::resume() {
  if (child_) child_->signal(SIGCONT);
}

bool RedisServer::kill() {
  if (!child_) return true;
  child_->signal(SIGCONT);  // a stopped process dies of SIGKILL too, but is reaped sooner awake
  child_->signal(SIGKILL);
  const bool exited = child_->wait(10s) >= 0;
  child_.reset();
  return exited;
}

bool RedisServer::restart() {
  if (!kill()) {
    error_ = "redis-server did not exit on SIGKILL";
    return false;
  }
  return start_on(port_);
}

ReplyPtr RedisServer::command(const std::vector<std::string>& argv) const {
  const timeval limit{1, 0};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, limit);
  if (c == nullptr || c->err != 0 || redisSetTimeout(c, limit) != REDIS_OK) {
    if (c != nullptr) redisFree(c);
    return nullptr;
  }
  std::vector<const char*> args;
  std::vector<std::size_t> lengths;
  for (const std::string& a : argv) {
    args.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(args.size()), args.data(), lengths.data()));
  redisFree(c);
  return ReplyPtr(reply);
}

}  // namespace sluice::test
