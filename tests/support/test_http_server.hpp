// Owns: TestHttpServer, a small HTTP/1.1 server on a loopback port and a
// thread of its own, standing in for sluiced where a test needs something
// served over HTTP before sluiced serves it: a scrape target for a real
// Prometheus, the dashboard page and an event stream for a real browser.
//
// Each request gets one reply from the handler and the connection closes,
// except on a stream path: there the reply is an open text/event-stream
// and push() writes SSE events to every stream client. The test can wait
// for a number of requests to a path or of stream clients; every wait has
// a deadline and wakes on the event itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sluice::test {

class TestHttpServer {
 public:
  struct Reply {
    int status = 200;
    std::string content_type = "text/plain";
    std::string body;
  };
  // Called on the server's thread with the request's path (query included).
  using Handler = std::function<Reply(std::string_view path)>;

  // Listens on 127.0.0.1 (an ephemeral port); requests to `stream_path`
  // (none if empty) open an event stream instead of reaching `handler`.
  explicit TestHttpServer(Handler handler, std::string stream_path = {});
  ~TestHttpServer();
  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }

  // Requests answered for `path` (without its query) so far.
  [[nodiscard]] std::size_t served(const std::string& path);
  // Waits until `count` requests for `path` were answered.
  bool wait_served(const std::string& path, std::size_t count, std::chrono::milliseconds limit);
  // Waits until `count` stream clients are connected.
  bool wait_stream_clients(std::size_t count, std::chrono::milliseconds limit);
  // Sends `data` as one SSE event (named `event` unless empty) to every
  // stream client. Returns how many it reached.
  std::size_t push(std::string_view event, std::string_view data);

 private:
  struct Pending {
    int fd;
    std::string request;
  };

  void serve();
  void accept_one();
  // Reads what `pending` sent; true when it is finished with (answered or gone).
  bool read_request(Pending& pending);
  void answer(int fd, std::string_view path);

  Handler handler_;
  std::string stream_path_;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::vector<Pending> pending_;  // the server thread's only

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::size_t> served_;
  std::vector<int> streams_;
  std::thread thread_;
};

}  // namespace sluice::test
