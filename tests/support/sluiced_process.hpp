// Owns: SluicedProcess, the real sluiced binary started by a test with
// --set settings on a free loopback port; listening_port(), the port its
// first line names; and curl_http(), one curl run whose status line,
// headers and body the test reads.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace sluice::test {

using namespace std::chrono_literals;

// The port in sluiced's first line ("... listening on ADDRESS:PORT"); 0 when
// the line says something else (it did not start).
inline std::uint16_t listening_port(const std::string& output) {
  const std::size_t end = output.find('\n');
  if (output.substr(0, end).find("listening on") == std::string::npos) return 0;
  return static_cast<std::uint16_t>(std::stoi(output.substr(output.rfind(':', end) + 1)));
}

class SluicedProcess {
 public:
  explicit SluicedProcess(const std::vector<std::string>& settings, const std::string& listen = "127.0.0.1:0")
      : process_(argv(settings, listen)) {
    if (process_.read_until_contains("\n", 10s)) port_ = listening_port(process_.output());
  }

  // 0 when it did not start.
  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Stops it as an operator would: 0 when it drained and exited cleanly.
  int stop() {
    ask_to_stop();
    return exit_code();
  }
  // SIGTERM, not waiting: the test watches its clients while it drains.
  void ask_to_stop() { process_.signal(SIGTERM); }
  // Its exit code once it has exited (waits up to 10 s).
  int exit_code() { return process_.wait(10s); }
  // kill -9: no drain, no goodbye; waits for the exit.
  void kill() {
    process_.signal(SIGKILL);
    (void)process_.wait(10s);
  }
  // Reads its output until `needle` is in it; false when `limit` passes
  // first.
  bool wait_for_output(const std::string& needle, std::chrono::milliseconds limit = 10s) {
    return process_.read_until_contains(needle, limit);
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
  std::uint16_t port_ = 0;
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
