// Owns: SluicedProcess, the real sluiced binary started by a test with
// --set settings on a free loopback port, and curl_http(), one curl run
// whose status line, headers and body the test reads.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace sluice::test {

using namespace std::chrono_literals;

class SluicedProcess {
 public:
  explicit SluicedProcess(const std::vector<std::string>& settings, const std::string& listen = "127.0.0.1:0")
      : process_(argv(settings, listen)) {
    if (!process_.read_until_contains("\n", 10s)) return;
    const std::string& banner = process_.output();
    const std::size_t colon = banner.rfind(':', banner.find('\n'));
    if (banner.find("listening on") != std::string::npos) port_ = std::stoi(banner.substr(colon + 1));
  }

  // 0 when it did not start.
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Stops it as an operator would: 0 when it drained and exited cleanly.
  int stop() {
    process_.signal(SIGTERM);
    return process_.wait(10s);
  }
  // kill -9: no drain, no goodbye; waits for the exit.
  void kill() {
    process_.signal(SIGKILL);
    (void)process_.wait(10s);
  }
  std::string output() {
    process_.read_to_end(1s);
    return process_.output();
  }

 private:
  static std::vector<std::string> argv(const std::vector<std::string>& settings, const std::string& listen) {
    std::vector<std::string> args = {env_path("SLUICED"), "--listen", listen};
    for (const std::string& s : settings) args.insert(args.end(), {"--set", s});
    return args;
  }

  ChildProcess process_;
  int port_ = 0;
};

struct CurlReply {
  int exit_code = -1;
  std::string text;  // status lines, headers and bodies as curl -i prints them

  [[nodiscard]] bool has(const std::string& needle) const { return text.find(needle) != std::string::npos; }
  // The first response's status code, 0 when there was none.
  [[nodiscard]] int status() const {
    const std::size_t sp = text.find(' ');
    return text.rfind("HTTP/", 0) == 0 && sp != std::string::npos ? std::stoi(text.substr(sp + 1, 3)) : 0;
  }
};

// curl -s -i with `args`, at most 10 s.
inline CurlReply curl_http(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"curl", "-s", "-i", "-m", "10"};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess curl(argv);
  curl.read_to_end(15s);
  CurlReply reply;
  reply.exit_code = curl.wait(5s);
  reply.text = curl.output();
  return reply;
}

}  // namespace sluice::test
