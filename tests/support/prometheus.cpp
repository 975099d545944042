#include "prometheus.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

namespace sluice::test {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// How long to wait before asking Prometheus again: a poll interval, not a
// synchronisation; the answer decides.
constexpr auto kPollInterval = 50ms;

std::filesystem::path make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/sluice-prometheus-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

// A port nothing listens on now. Prometheus binds it a moment later; should
// another process take it in between, start() sees "address already in use"
// and tries another.
std::uint16_t unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  std::uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

std::string percent_encode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// One HTTP/1.0 GET, read to the server's close (so the body is never chunked).
std::optional<std::string> http_get(std::uint16_t port, const std::string& target, std::string& error) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      const auto deadline = Clock::now() + 10s;
      char chunk[16384];
      for (pollfd p{fd, POLLIN, 0}; Clock::now() < deadline && ::poll(&p, 1, 1000) >= 0;) {
        if (p.revents == 0) continue;
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) break;
        reply.append(chunk, static_cast<std::size_t>(n));
      }
    }
  }
  ::close(fd);
  const std::size_t body = reply.find("\r\n\r\n");
  if (body == std::string::npos || reply.compare(0, 12, "HTTP/1.0 200") != 0) {
    error = "GET " + target + ": " + (reply.empty() ? "no reply" : reply.substr(0, reply.find('\r')));
    return std::nullopt;
  }
  return reply.substr(body + 4);
}

}  // namespace

Prometheus::Prometheus(std::uint16_t target_port, const std::string& metrics_path,
                       std::chrono::milliseconds interval) {
  dir_ = make_temp_dir();
  if (dir_.empty()) return;
  std::ofstream(dir_ / "prometheus.yml") << "global:\n"
                                         << "  scrape_interval: " << interval.count() << "ms\n"
                                         << "  scrape_timeout: " << interval.count() << "ms\n"
                                         << "scrape_configs:\n"
                                         << "  - job_name: sluice\n"
                                         << "    metrics_path: " << metrics_path << "\n"
                                         << "    static_configs:\n"
                                         << "      - targets: ['127.0.0.1:" << target_port << "']\n";
  for (int attempt = 0; attempt < 5 && port_ == 0; ++attempt) {
    if (!start(unused_port())) break;
  }
}

// Returns false when trying another port would not help.
bool Prometheus::start(std::uint16_t port) {
  const char* binary = std::getenv("PROMETHEUS");
  process_ = std::make_unique<ChildProcess>(std::vector<std::string>{
      binary != nullptr ? binary : "/usr/bin/prometheus", "--config.file=" + (dir_ / "prometheus.yml").string(),
      "--storage.tsdb.path=" + (dir_ / "data").string(), "--web.listen-address=127.0.0.1:" + std::to_string(port)});
  const bool ready = process_->read_until_contains("Server is ready to receive web requests", 60s);
  log_ += process_->output();
  if (ready) {
    port_ = port;
    return true;
  }
  const bool port_taken = process_->output().find("address already in use") != std::string::npos;
  process_->signal(SIGKILL);
  process_->wait(10s);
  process_.reset();
  return port_taken;
}

Prometheus::~Prometheus() {
  if (process_) {
    process_->signal(SIGTERM);
    process_->wait(30s);
    process_.reset();
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

std::string Prometheus::log() const {
  if (process_) process_->read_until_contains("\x01", 10ms);  // whatever it wrote since
  return log_ + (process_ ? process_->output() : std::string());
}

std::optional<std::string> Prometheus::api_get(const std::string& target) {
  if (port_ == 0) {
    last_error_ = "prometheus did not start";
    return std::nullopt;
  }
  return http_get(port_, target, last_error_);
}

bool Prometheus::wait_target_up(std::chrono::milliseconds limit) {
  for (const auto deadline = Clock::now() + limit; Clock::now() < deadline; std::this_thread::sleep_for(kPollInterval)) {
    const auto body = api_get("/api/v1/targets?state=active");
    if (!body) continue;
    const auto json = nlohmann::json::parse(*body, nullptr, false);
    if (json.is_discarded()) continue;
    for (const auto& target : json["data"]["activeTargets"]) {
      if (target.value("health", "") == "up") return true;
      last_error_ = "target " + target.value("scrapeUrl", "?") + " is " + target.value("health", "?") + ": " +
                    target.value("lastError", "");
    }
  }
  return false;
}

std::optional<double> Prometheus::query(const std::string& promql) {
  const auto body = api_get("/api/v1/query?query=" + percent_encode(promql));
  if (!body) return std::nullopt;
  const auto json = nlohmann::json::parse(*body, nullptr, false);
  if (json.is_discarded() || json.value("status", "") != "success") {
    last_error_ = promql + ": " + *body;
    return std::nullopt;
  }
  const auto& result = json["data"]["result"];
  if (!result.is_array() || result.size() != 1) {
    last_error_ = promql + ": " + std::to_string(result.size()) + " samples";
    return std::nullopt;
  }
  return std::stod(result[0]["value"][1].get<std::string>());
}

std::optional<double> Prometheus::wait_for_value(const std::string& promql, double expected,
                                                 std::chrono::milliseconds limit) {
  std::optional<double> value;
  for (const auto deadline = Clock::now() + limit; Clock::now() < deadline; std::this_thread::sleep_for(kPollInterval)) {
    value = query(promql);
    if (value == expected) break;
  }
  return value;
}

}  // namespace sluice::test
