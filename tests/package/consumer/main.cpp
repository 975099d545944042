// A program built against an installed sluice (find_package or pkg-config),
// as an application would write it: a server on a free port publishes the
// time to subscribers its authorizer lets in, and a real client of the same
// installation receives it. Exit 0 once the client has the event; 1 on any
// failure or after 20 s.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <sluice/sluice.hpp>

using namespace std::chrono_literals;

int main() {
  sluice::server::Config config;
  config.listen = "127.0.0.1:0";
  config.threads = 1;
  sluice::server::Server server(config);
  if (server.bind() != 0) return std::perror("bind"), 1;
  std::atomic<int> subscribes{0};
  server.authorize([&](const sluice::server::AuthRequest& r) {
    if (r.action != sluice::server::Action::subscribe) return sluice::server::AuthDecision::allow();
    ++subscribes;
    return r.topic == "clock" ? sluice::server::AuthDecision::allow()
                              : sluice::server::AuthDecision::deny(403, "only the clock");
  });
  int tick = 0;
  sluice::server::Publisher clock = server.publisher("clock");
  if (clock.status() != sluice::server::PublishStatus::ok) return std::puts("no publisher of the clock"), 1;
  server.every(std::chrono::milliseconds(50), [&] {
    const std::string data = "{\"tick\":" + std::to_string(++tick) + "}";
    (void)clock.publish(data, "tick");
  });
  std::thread serving([&] { server.run(); });

  sluice::client::SseClient client;
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/sse/clock";
  int status = 1;
  if (client.start(url).kind == sluice::client::ErrorKind::none) {
    sluice::client::Event event;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (status != 0 && std::chrono::steady_clock::now() < deadline) {
      const sluice::client::NextStatus next = client.next(event, 1s);
      if (next == sluice::client::NextStatus::ended) break;
      if (next == sluice::client::NextStatus::event && event.type == "tick") {
        std::printf("received %s %s\n", event.id.c_str(), event.data.c_str());
        status = 0;
      }
    }
  }
  client.stop();
  server.stop();
  serving.join();
  if (subscribes == 0) return std::puts("the authorizer was never asked"), 1;
  return status;
}
