// Owns: CallbackServer, a small real HTTP/1.1 server the callback tests
// start on a loopback port of its own, in a thread. It reads each request
// whole, keeps a copy, and answers by the topic in the JSON body:
//   "status-NNN"  -> status NNN, Connection: close
//   "retry-N"     -> 429 with Retry-After: N
//   "hold"        -> no answer until the server stops
//   "gate-NNN"    -> status NNN, once open_gate() was called (held till then)
//   "garbage"     -> bytes that are not HTTP
//   "close"       -> the connection closed without an answer
#pragma once

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/socket.hpp"

namespace sluice::auth::test {

class CallbackServer {
 public:
  CallbackServer() {
    listen_fd_ = io::listen_tcp(io::Endpoint{"127.0.0.1", 0}, io::ListenOptions{});
    port_ = io::local_port(listen_fd_);
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    gate_fd_ = ::eventfd(0, EFD_CLOEXEC);
    thread_ = std::thread([this] { serve(); });
  }

  ~CallbackServer() {
    const std::uint64_t one = 1;
    (void)::write(stop_fd_, &one, sizeof one);
    thread_.join();
    for (const auto& [fd, buffer] : clients_) ::close(fd);
    for (const auto& [fd, status] : gated_) ::close(fd);
    ::close(listen_fd_);
    ::close(stop_fd_);
    ::close(gate_fd_);
  }

  // Answers the "gate-NNN" questions held so far, and those to come at once.
  void open_gate() {
    const std::uint64_t one = 1;
    (void)::write(gate_fd_, &one, sizeof one);
  }

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::size_t requests() const { return count_.load(); }
  [[nodiscard]] std::vector<std::string> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void serve() {
    for (;;) {
      std::vector<pollfd> fds{{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}, {gate_fd_, POLLIN, 0}};
      for (const auto& [fd, buffer] : clients_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) continue;
      if (fds[0].revents != 0) return;
      if (fds[1].revents != 0) accept_all();
      if (fds[2].revents != 0) open_held_gates();
      for (std::size_t i = 3; i < fds.size(); ++i) {
        if (fds[i].revents != 0) read_from(fds[i].fd);
      }
    }
  }

  void accept_all() {
    for (int fd; (fd = io::accept_nonblocking(listen_fd_)) >= 0;) clients_[fd];
  }

  void read_from(int fd) {
    char chunk[4096];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) {
      if (n < 0 && errno == EAGAIN) return;
      ::close(fd);
      clients_.erase(fd);
      return;
    }
    std::string& buffer = clients_[fd];
    buffer.append(chunk, static_cast<std::size_t>(n));
    const std::size_t head_end = buffer.find("\r\n\r\n");
    if (head_end == std::string::npos) return;
    const std::size_t length_at = buffer.find("Content-Length: ");
    const std::size_t length = length_at < head_end ? std::stoul(buffer.substr(length_at + 16)) : 0;
    if (buffer.size() < head_end + 4 + length) return;
    answer(fd, buffer);
  }

  void open_held_gates() {
    std::uint64_t count = 0;
    (void)::read(gate_fd_, &count, sizeof count);
    gate_open_ = true;
    for (const auto& [fd, status] : gated_) reply_and_close(fd, "HTTP/1.1 " + status + " X\r\n");
    gated_.clear();
  }

  void answer(int fd, const std::string& request) {
    {
      std::lock_guard lock(mutex_);
      received_.push_back(request);
    }
    ++count_;
    const std::size_t at = request.find("\"topic\":\"");
    const std::string topic = request.substr(at + 9, request.find('"', at + 9) - at - 9);
    std::string reply;
    if (topic == "hold") return;  // kept open, unanswered
    if (topic.starts_with("gate-") && !gate_open_) {
      gated_.emplace_back(fd, topic.substr(5));
      clients_.erase(fd);  // no more reading: its answer waits for the gate
      return;
    }
    if (topic.starts_with("gate-")) reply = "HTTP/1.1 " + topic.substr(5) + " X\r\n";
    if (topic == "garbage")
      reply = "SSH-2.0-OpenSSH\r\n";
    else if (topic.starts_with("retry-"))
      reply = "HTTP/1.1 429 Too Many\r\nRetry-After: " + topic.substr(6) + "\r\n";
    else if (topic.starts_with("status-"))
      reply = "HTTP/1.1 " + topic.substr(7) + " X\r\n";
    reply_and_close(fd, reply);
    clients_.erase(fd);
  }

  static void reply_and_close(int fd, std::string reply) {
    if (reply.starts_with("HTTP")) reply += "Content-Length: 2\r\nConnection: close\r\n\r\nok";
    (void)::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
    ::close(fd);
  }

  int listen_fd_ = -1;
  int stop_fd_ = -1;
  int gate_fd_ = -1;
  bool gate_open_ = false;                         // server thread only
  std::vector<std::pair<int, std::string>> gated_;  // held "gate-" questions: fd, status; server thread only
  std::uint16_t port_ = 0;
  std::map<int, std::string> clients_;  // server thread only
  mutable std::mutex mutex_;
  std::vector<std::string> received_;
  std::atomic<std::size_t> count_{0};
  std::thread thread_;
};

}  // namespace sluice::auth::test
