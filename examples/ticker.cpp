// A server that pushes the time to every subscriber of topic "clock" once a
// second, alongside whatever clients publish with POST /pub/{topic}.
//   curl -N http://127.0.0.1:8080/sse/clock
// Ctrl-C or SIGTERM drains it: subscribers are told to come back, then it exits.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>

#include "sluice/server.hpp"

namespace {

sluice::server::Server* running = nullptr;

// stop() may be called from a signal handler.
void stop_running(int) {
  if (running != nullptr) running->stop();
}

}  // namespace

int main() {
  sluice::server::Config config;  // defaults: 127.0.0.1:8080, bounded everything
  sluice::server::Server server(config);
  if (server.bind() != 0) return std::perror("bind"), 1;
  int tick = 0;
  server.every(std::chrono::seconds(1), [&] {
    const std::string data = "{\"tick\":" + std::to_string(++tick) + "}";
    server.publish("clock", data, "tick");
  });
  running = &server;
  std::signal(SIGINT, stop_running);
  std::signal(SIGTERM, stop_running);
  server.run();  // until a signal stops it; then it drains and returns
  running = nullptr;
}
