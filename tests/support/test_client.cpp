#include "test_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <gtest/gtest.h>

#include "io/socket.hpp"

namespace sluice::test {

namespace {
using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}
}  // namespace

TestClient::TestClient(std::uint16_t port, int receive_buffer) {
  if (receive_buffer == 0) {
    fd_ = io::connect_tcp(io::Endpoint{"127.0.0.1", port});
    return;
  }
  // A small receive window on loopback, whose MSS is 64 KiB, would be
  // smaller than one segment and stall on the persist timer; a real link's
  // MSS keeps the window several segments wide, as on a Wi-Fi client.
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int mss = 1400;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss);
  io::set_receive_buffer(fd_, receive_buffer);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

TestClient::~TestClient() {
  if (fd_ >= 0) ::close(fd_);
}

void TestClient::end_sending() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

void TestClient::reset() {
  if (fd_ < 0) return;
  const linger abort{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  ::close(fd_);
  fd_ = -1;
}

void TestClient::send(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

bool TestClient::read_some(std::chrono::milliseconds limit) {
  if (fd_ < 0 || eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    eof_ = true;  // EOF, or a reset: either way the server is done with us
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

bool TestClient::read_until(const std::function<bool(const std::string&)>& done, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!done(buffer_)) {
    if (Clock::now() >= deadline) return false;
    if (!read_some(std::chrono::milliseconds(remaining_ms(deadline))) && eof_) return done(buffer_);
  }
  return true;
}

bool TestClient::read_until_contains(std::string_view needle, std::chrono::milliseconds limit) {
  return read_until([needle](const std::string& b) { return b.find(needle) != std::string::npos; }, limit);
}

bool TestClient::read_until_closed(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!eof_ && Clock::now() < deadline) read_some(std::chrono::milliseconds(remaining_ms(deadline)));
  return eof_;
}

HttpReply read_reply(TestClient& client, std::chrono::milliseconds limit) {
  HttpReply reply;
  std::size_t head_end = std::string::npos;
  std::size_t length = 0;
  const bool whole = client.read_until(
      [&](const std::string& b) {
        head_end = b.find("\r\n\r\n");
        if (head_end == std::string::npos) return false;
        const auto cl = b.find("Content-Length: ");
        length = cl < head_end ? std::strtoul(b.c_str() + cl + 16, nullptr, 10) : 0;
        return b.size() >= head_end + 4 + length;
      },
      limit);
  if (!whole) return reply;
  std::string& b = client.buffer();
  reply.head = b.substr(0, head_end + 4);
  reply.body = b.substr(head_end + 4, length);
  reply.status = std::atoi(reply.head.c_str() + 9);
  b.erase(0, head_end + 4 + length);
  return reply;
}

HttpReply http_request(std::uint16_t port, std::string_view method, std::string_view target, std::string_view body) {
  TestClient client(port);
  std::string request = std::string(method) + " " + std::string(target) +
                        " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  client.send(request);
  return read_reply(client);
}

std::uint64_t seq_of(std::string_view id) {
  const auto colon = id.rfind(':');
  if (colon == std::string_view::npos) return 0;
  return std::strtoull(std::string(id.substr(colon + 1)).c_str(), nullptr, 10);
}

std::string post_request(std::string_view target, std::string_view body) {
  return "POST " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

int publish(TestClient& publisher, std::string_view target, std::string_view body) {
  publisher.send(post_request(target, body));
  return read_reply(publisher).status;
}

int publish_retrying_busy(TestClient& publisher, std::string_view target, std::string_view body,
                          std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    publisher.send(post_request(target, body));
    const HttpReply reply = read_reply(publisher);
    const bool busy = reply.status == 503 && reply.head.find("Retry-After: 0\r\n") != std::string::npos;
    if (!busy || std::chrono::steady_clock::now() >= deadline) return reply.status;
  }
}

SseSubscriber::SseSubscriber(std::uint16_t port, std::string_view target, int receive_buffer,
                             std::string_view last_id)
    : client_(port, receive_buffer), parser_({.max_line = 16 << 20, .max_data = 16 << 20}) {
  const std::string resume = last_id.empty() ? "" : "Last-Event-ID: " + std::string(last_id) + "\r\n";
  client_.send("GET " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n" +
               resume + "\r\n");
}

bool SseSubscriber::opened(std::chrono::milliseconds limit) {
  if (!head_done_) {
    if (!client_.read_until_contains("\r\n\r\n", limit)) return false;
    std::string& b = client_.buffer();
    if (b.rfind("HTTP/1.1 200 ", 0) != 0) return false;
    b.erase(0, b.find("\r\n\r\n") + 4);
    head_done_ = true;
  }
  parse_buffered();
  return true;
}

bool SseSubscriber::wait_for(std::size_t count, std::chrono::milliseconds limit) {
  if (!opened(limit)) return false;
  return client_.read_until(
      [&](const std::string&) {
        parse_buffered();
        return events_.size() >= count;
      },
      limit);
}

void SseSubscriber::parse_buffered() {
  std::string& b = client_.buffer();
  if (b.empty()) return;
  const auto status = parser_.feed(b, *this);
  b.clear();
  if (status != proto::sse::ParseStatus::ok) ADD_FAILURE() << "the SSE stream does not parse";
}

void SseSubscriber::on_event(const proto::sse::ReceivedEvent& event) {
  events_.push_back(Event{std::string(event.id), std::string(event.type), std::string(event.data)});
}

server::Config without_system_feed(server::Config config) {
  config.ops.dashboard = 0;
  return config;
}

RunningServer::RunningServer(server::Config config, const std::function<void(server::Server&)>& before_run)
    : config_(std::move(config)) {
  config_.listen = "127.0.0.1:0";
  server_ = std::make_unique<server::Server>(config_);
  if (server_->bind() != 0) std::abort();
  if (before_run) before_run(*server_);
  start();
}

void RunningServer::start() {
  thread_ = std::thread([this] { server_->run(); });
}

void RunningServer::restart() {
  const std::uint16_t same_port = port();
  stop();
  server_.reset();
  config_.listen = "127.0.0.1:" + std::to_string(same_port);
  server_ = std::make_unique<server::Server>(config_);
  if (server_->bind() != 0) std::abort();
  start();
}

RunningServer::~RunningServer() { stop(); }

void RunningServer::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace sluice::test
