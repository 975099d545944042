// Owns: H2TestServer, a small server made of the transport engines alone
// (TlsStream, H2Session), for tests that need a real HTTP/2 peer to talk
// to before sluiced carries HTTP/2 itself. One thread, one poll() loop, on
// a free loopback port; h2c by prior knowledge, or TLS with ALPN h2.
//
// Its routes stand in for sluice's: GET /sse/{topic} opens an event stream
// (a comment first, then "data: ..." per publish), POST /pub/{topic}
// publishes the body and answers {"subscribers":N}, an extended CONNECT
// (:protocol websocket) echoes every byte back, anything else is 404. A
// stream whose queue is over budget counts a refusal, as a policy would.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "buf/pool.hpp"
#include "transport/h2_session.hpp"
#include "transport/tls_context.hpp"

namespace sluice::transport::test {

struct H2ServerOptions {
  H2Limits limits;
  TlsContext tls;  // empty: h2c (prior knowledge)
  std::size_t pool_blocks = 8192;
  std::size_t block_size = 1024;
};

// What a closed connection's session said about itself at the end.
struct ClosedSession {
  H2End end;
  H2Stats stats;
};

class H2TestServer {
 public:
  explicit H2TestServer(H2ServerOptions options);
  ~H2TestServer();
  H2TestServer(const H2TestServer&) = delete;
  H2TestServer& operator=(const H2TestServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }

  // Sends "data: `data`" to every stream following `topic`. Returns the
  // streams it was queued on (on the server's thread, waited for).
  int publish(const std::string& topic, const std::string& data);
  // Every connection's session asks for an ACK (H2Session::ask_ack), on
  // the server's thread; the loop then flushes the PING. Returns the
  // number of the PING that answers it, on the last connection.
  std::uint64_t ask_ack();
  // Connections whose asked PING has not been answered.
  std::size_t acks_asked();
  // The number of the last PING answered, on the last connection.
  std::uint64_t acks_answered();
  // Subscribers of `topic` now.
  int subscribers(const std::string& topic);
  // Over-budget refusals counted on `topic`'s streams so far.
  std::uint64_t refusals(const std::string& topic);
  // Bytes queued on `topic`'s streams, not yet in DATA frames.
  std::size_t queued(const std::string& topic);
  // Stats of the connections open now.
  std::vector<H2Stats> open_sessions();
  // Sessions of connections that closed, in order.
  std::vector<ClosedSession> closed_sessions();
  // Sessions ever accepted, open or closed, counted in one step on the
  // loop: a session closing between two separate calls is counted once.
  std::size_t sessions_accepted();
  // Waits until `done()` holds (it runs on the caller's thread and may ask
  // the server through the calls above).
  bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit);

  struct Connection;
  struct Subscriber {
    Connection* connection;
    std::int32_t stream;
    std::string topic;
    std::uint64_t refusals = 0;
  };

 private:
  template <typename F>
  auto call(F work) -> decltype(work());
  void run();
  void accept_all();
  void serve(Connection& connection, short revents);
  bool read_input(Connection& connection);
  void flush(Connection& connection);
  void run_tasks();

  friend class StreamRoutes;
  int publish_now(const std::string& topic, const std::string& data);
  void unsubscribe(Connection* connection, std::int32_t stream);

  H2ServerOptions options_;
  buf::Pool pool_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Subscriber> subscribers_;
  std::vector<ClosedSession> closed_;
  std::map<std::string, std::uint64_t> refusals_;

  std::mutex tasks_mutex_;
  std::vector<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sluice::transport::test
