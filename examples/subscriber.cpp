// A subscriber that survives the server: it prints every event of one
// topic, and when the stream ends it reconnects with back-off and resumes
// from the last id it received, so that a server with history loses it
// nothing. Usage: example_subscriber [http://127.0.0.1:8080/sse/clock]
#include <chrono>
#include <cstdio>

#include "sluice/client/sse_client.hpp"

using namespace std::chrono_literals;
using sluice::client::ClientState;
using sluice::client::ErrorKind;
using sluice::client::EventKind;

int main(int argc, char** argv) {
  const char* url = argc > 1 ? argv[1] : "http://127.0.0.1:8080/sse/clock";
  sluice::client::ClientOptions options;
  options.on_status = [](const sluice::client::StatusReport& report) {
    if (report.state == ClientState::waiting) {
      std::fprintf(stderr, "%s; again in %lld ms\n", report.error->message.c_str(),
                   static_cast<long long>(report.retry_in.count()));
    }
  };
  sluice::client::SseClient client(options);
  if (const auto error = client.start(url); error.kind != ErrorKind::none) {
    std::fprintf(stderr, "%s\n", error.message.c_str());
    return 2;
  }
  sluice::client::Event event;  // reused: its buffers go back to the client
  while (client.next(event, 1h) != sluice::client::NextStatus::ended) {
    if (event.kind == EventKind::reset) std::printf("(history lost: %s)\n", event.data.c_str());
    if (event.kind == EventKind::dropped) {
      std::printf("(%llu dropped)\n", static_cast<unsigned long long>(event.dropped));
    }
    if (event.kind == EventKind::message) std::printf("%s %s\n", event.id.c_str(), event.data.c_str());
    std::fflush(stdout);
  }
  std::fprintf(stderr, "%s\n", client.error().message.c_str());  // a fatal error ended it
  return 1;
}
