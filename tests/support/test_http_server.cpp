#include "test_http_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace sluice::test {

namespace {

constexpr std::size_t kMaxRequest = 16384;

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// "GET /metrics?x=1 HTTP/1.1" -> "/metrics?x=1"
std::string_view target_of(std::string_view request) {
  const std::size_t start = request.find(' ');
  if (start == std::string_view::npos) return {};
  const std::size_t end = request.find(' ', start + 1);
  if (end == std::string_view::npos) return {};
  return request.substr(start + 1, end - start - 1);
}

std::string_view without_query(std::string_view target) { return target.substr(0, target.find('?')); }

}  // namespace

TestHttpServer::TestHttpServer(Handler handler, std::string stream_path)
    : handler_(std::move(handler)), stream_path_(std::move(stream_path)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &length) != 0 ||
      ::pipe2(wake_fds_, O_CLOEXEC) != 0) {
    return;
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

TestHttpServer::~TestHttpServer() {
  if (thread_.joinable()) {
    const char wake = 'x';
    (void)!::write(wake_fds_[1], &wake, 1);
    thread_.join();
  }
  for (const Pending& p : pending_) ::close(p.fd);
  for (const int fd : streams_) ::close(fd);
  for (const int fd : {listen_fd_, wake_fds_[0], wake_fds_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void TestHttpServer::serve() {
  for (;;) {
    std::vector<pollfd> fds{{wake_fds_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const Pending& p : pending_) fds.push_back({p.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) return;
    if (fds[1].revents != 0) accept_one();
    // Walk the fds polled, not pending_ (accept_one may have grown it).
    std::vector<int> finished;
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.fd == fds[i].fd; });
      if (read_request(*it)) finished.push_back(it->fd);
    }
    std::erase_if(pending_, [&](const Pending& p) { return std::count(finished.begin(), finished.end(), p.fd) > 0; });
  }
}

void TestHttpServer::accept_one() {
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) pending_.push_back({fd, {}});
}

bool TestHttpServer::read_request(Pending& pending) {
  char chunk[4096];
  const ssize_t n = ::recv(pending.fd, chunk, sizeof chunk, 0);
  if (n <= 0) {
    ::close(pending.fd);
    return true;
  }
  pending.request.append(chunk, static_cast<std::size_t>(n));
  if (pending.request.find("\r\n\r\n") == std::string::npos) {
    if (pending.request.size() <= kMaxRequest) return false;
    ::close(pending.fd);
    return true;
  }
  answer(pending.fd, target_of(pending.request));
  return true;
}

void TestHttpServer::answer(int fd, std::string_view target) {
  const std::string path(without_query(target));
  if (!stream_path_.empty() && path == stream_path_) {
    write_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n");
    const std::lock_guard lock(mutex_);
    streams_.push_back(fd);
    ++served_[path];
    changed_.notify_all();
    return;
  }
  const Reply reply = handler_(target);
  const std::string head = "HTTP/1.1 " + std::to_string(reply.status) + " X\r\nContent-Type: " + reply.content_type +
                           "\r\nContent-Length: " + std::to_string(reply.body.size()) + "\r\nConnection: close\r\n\r\n";
  write_all(fd, head);
  write_all(fd, reply.body);
  ::close(fd);
  const std::lock_guard lock(mutex_);
  ++served_[path];
  changed_.notify_all();
}

std::size_t TestHttpServer::served(const std::string& path) {
  const std::lock_guard lock(mutex_);
  return served_[path];
}

bool TestHttpServer::wait_served(const std::string& path, std::size_t count, std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return served_[path] >= count; });
}

bool TestHttpServer::wait_stream_clients(std::size_t count, std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return streams_.size() >= count; });
}

std::size_t TestHttpServer::push(std::string_view event, std::string_view data) {
  std::string frame;
  if (!event.empty()) frame.append("event: ").append(event).append("\n");
  for (std::size_t start = 0; start <= data.size();) {
    const std::size_t end = std::min(data.find('\n', start), data.size());
    frame.append("data: ").append(data.substr(start, end - start)).append("\n");
    start = end + 1;
  }
  frame.append("\n");
  const std::lock_guard lock(mutex_);
  std::size_t reached = 0;
  for (const int fd : streams_) {
    if (::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(frame.size())) ++reached;
  }
  return reached;
}

}  // namespace sluice::test
