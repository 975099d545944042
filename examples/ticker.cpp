// A server that pushes the time to every subscriber of topic "clock" once a
// second, alongside whatever clients publish with POST /pub/{topic}.
//   curl -N http://127.0.0.1:8080/sse/clock
#include <chrono>
#include <cstdio>
#include <string>

#include "sluice/server.hpp"

int main() {
  sluice::server::Config config;  // defaults: 127.0.0.1:8080, bounded everything
  sluice::server::Server server(config);
  if (server.bind() != 0) return std::perror("bind"), 1;
  int tick = 0;
  server.every(std::chrono::seconds(1), [&] {
    const std::string data = "{\"tick\":" + std::to_string(++tick) + "}";
    server.publish("clock", data, "tick");
  });
  server.run();  // until SIGINT/SIGTERM handling calls server.stop(), or forever
}
