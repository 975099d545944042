// Owns: TestClient, a blocking raw-socket client for integration tests, and
// RunningServer, a sluice server on an ephemeral port in its own thread.
// Every wait has a deadline; none is a sleep.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "proto/sse_parser.hpp"
#include "sluice/server.hpp"

namespace sluice::test {

using namespace std::chrono_literals;

class TestClient {
 public:
  explicit TestClient(std::uint16_t port, int receive_buffer = 0);
  ~TestClient();
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  [[nodiscard]] bool connected() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }
  void send(std::string_view bytes);
  // Shuts the sending side (a FIN): the client asks nothing more, and
  // reads on.
  void end_sending();
  // Closes with a reset (SO_LINGER 0), as a client that went at once
  // does, where a FIN alone may mean it still reads.
  void reset();

  // Reads until `done(buffer)` holds; false on EOF or when `limit` passes.
  bool read_until(const std::function<bool(const std::string&)>& done, std::chrono::milliseconds limit = 10s);
  bool read_until_contains(std::string_view needle, std::chrono::milliseconds limit = 10s);
  // Reads until the server closes; false if it has not within `limit`.
  bool read_until_closed(std::chrono::milliseconds limit = 10s);
  // One read of whatever is there, waiting up to `limit`: a reader that
  // paces itself. False on timeout or EOF.
  bool read_some(std::chrono::milliseconds limit);
  [[nodiscard]] bool eof() const { return eof_; }

  std::string& buffer() { return buffer_; }

 private:

  int fd_ = -1;
  bool eof_ = false;
  std::string buffer_;
};

// A full HTTP response read off a TestClient.
struct HttpReply {
  int status = 0;
  std::string head;
  std::string body;
};
// Reads one Content-Length-delimited response from the front of the
// client's buffer and removes it. status 0 when none arrived in time.
HttpReply read_reply(TestClient& client, std::chrono::milliseconds limit = 10s);
// Sends one request on a fresh connection and reads the reply.
HttpReply http_request(std::uint16_t port, std::string_view method, std::string_view target,
                       std::string_view body = {});

// An SSE subscriber that parses its stream as it reads it.
class SseSubscriber : private proto::sse::Handler {
 public:
  struct Event {
    std::string id;
    std::string type;
    std::string data;
  };

  // Connects and sends GET `target` (with Last-Event-ID when `last_id` is
  // given); check opened() before relying on it.
  SseSubscriber(std::uint16_t port, std::string_view target, int receive_buffer = 0, std::string_view last_id = {});
  // Waits for the 200 head (and the initial retry field).
  [[nodiscard]] bool opened(std::chrono::milliseconds limit = 10s);
  // Reads until `count` events arrived in all; false on timeout or EOF.
  bool wait_for(std::size_t count, std::chrono::milliseconds limit = 20s);
  std::vector<Event>& events() { return events_; }
  // Parses what has been read so far (call from a read_until predicate).
  void parse_buffered();
  // Every `retry:` value the stream carried, in order.
  const std::vector<std::uint64_t>& retries() const { return retries_; }
  TestClient& client() { return client_; }

 private:
  void on_event(const proto::sse::ReceivedEvent& event) override;
  void on_retry(std::uint64_t retry_ms) override { retries_.push_back(retry_ms); }

  TestClient client_;
  proto::sse::Parser parser_;
  bool head_done_ = false;
  std::vector<Event> events_;
  std::vector<std::uint64_t> retries_;
};

// The sequence part of an event id "EPOCH:SEQ" (0 if it has none).
std::uint64_t seq_of(std::string_view id);

// A POST of `body` to `target`, as one request's bytes (pipelined
// requests are several of these sent together).
std::string post_request(std::string_view target, std::string_view body);

// Publishes on a kept-alive connection and returns the reply's status.
int publish(TestClient& publisher, std::string_view target, std::string_view body);
// Publishes as a publisher that follows the server's answer does: a 503
// with Retry-After: 0 (a loop was behind on the topic; nothing was
// published) is sent again at once, for up to `limit`. The last status.
int publish_retrying_busy(TestClient& publisher, std::string_view target, std::string_view body,
                          std::chrono::milliseconds limit = 10s);

// `config` for a test that counts the server's heap allocations: without the
// $sys snapshots, the server's own once-a-second publish. A snapshot
// allocates only while its tables grow (the first ones, or when a topic
// appears: DashboardSystemTopic.ASteadySetOfTopics…), which a test's new
// topics make happen during its measured stretch whenever a snapshot falls
// in it, as it did on a loaded machine.
server::Config without_system_feed(server::Config config = {});

// Polls `done` until it holds or `limit` passes.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

class RunningServer {
 public:
  // `before_run` may set hooks (on_open, every) before the loops start.
  explicit RunningServer(server::Config config = {},
                         const std::function<void(server::Server&)>& before_run = {});
  ~RunningServer();
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return server_->port(); }
  server::Server& server() { return *server_; }
  // Stops and joins the serving thread (the graceful drain included).
  void stop();
  // Stops, then starts a new server (a new epoch, empty history) with the
  // same config on the same port.
  void restart();

 private:
  void start();

  server::Config config_;
  std::unique_ptr<server::Server> server_;
  std::thread thread_;
};

}  // namespace sluice::test
