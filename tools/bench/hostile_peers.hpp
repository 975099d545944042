// Owns: the peers of the hostile-memory scenario. Attack: many connections
// on one epoll thread, each sending the start of something it never
// finishes (a WebSocket message, a chunked body) as fast as its socket
// takes, or subscribing and never reading, and noting the server's answer.
// Witnesses: one SSE and one WebSocket subscriber, each read on its own
// thread, checking that the events "event N" arrive whole and in order
// (N rising; a publish whose answer came too late may have been published
// all the same, so numbers are the publisher's attempts) and that every
// publish the server accepted arrived.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/socket.hpp"

namespace sluice::bench {

struct AttackSpec {
  io::Endpoint server;
  std::size_t count = 0;
  std::size_t message = 0;     // bytes of each unfinished WebSocket message
  std::size_t body = 0;        // bytes of each unfinished chunked body
  std::size_t per_source = 0;  // connections per loopback address
};

struct AttackTally {
  std::size_t held = 0;  // still open, no answer: the server holds what they sent
  std::size_t closed_1009 = 0;
  std::size_t answered_503 = 0;
  std::size_t answered_other = 0;  // any other answer, or a close without one
  std::uint64_t bytes_sent = 0;
};

class Attack {
 public:
  explicit Attack(const AttackSpec& spec) : spec_(spec) {}
  ~Attack();
  Attack(const Attack&) = delete;
  Attack& operator=(const Attack&) = delete;

  // Opens every connection. Returns an error line, or "".
  [[nodiscard]] std::string connect();
  // Writes and reads until `stop`; on the caller's thread.
  void pump(const std::atomic<bool>& stop);
  // Read while pump() runs or after; counts are atomic enough for a report.
  [[nodiscard]] AttackTally tally() const;

 private:
  enum class Kind : std::uint8_t { ws_message, chunked_body, unread_stream };
  enum class Outcome : std::uint8_t { open, closed_1009, answered_503, answered_other };
  struct Peer {
    int fd = -1;
    Kind kind = Kind::ws_message;
    std::string head;
    std::size_t total = 0;  // head plus payload bytes
    std::size_t sent = 0;
    std::string answer;  // the first bytes the server sent
    std::atomic<Outcome> outcome{Outcome::open};
  };

  void write_some(Peer& p);
  void read_answer(Peer& p);
  void classify(Peer& p);

  AttackSpec spec_;
  std::vector<std::unique_ptr<Peer>> peers_;
  int epoll_fd_ = -1;
  std::atomic<std::uint64_t> bytes_sent_{0};
};

class Witnesses {
 public:
  Witnesses(const io::Endpoint& server, std::string topic) : server_(server), topic_(std::move(topic)) {}
  ~Witnesses();
  Witnesses(const Witnesses&) = delete;
  Witnesses& operator=(const Witnesses&) = delete;

  // Opens both streams. Returns an error line, or "".
  [[nodiscard]] std::string open(std::uint64_t deadline_ns);
  // Waits until both have every event in `accepted` (the attempts the
  // server answered 200); "" when they have, in order.
  [[nodiscard]] std::string check(const std::vector<std::size_t>& accepted, std::uint64_t deadline_ns);

 private:
  struct Stream {
    int fd = -1;
    std::mutex mutex;
    std::vector<std::size_t> numbers;  // in arrival order
    std::atomic<bool> out_of_order{false};
    std::thread reader;
  };
  [[nodiscard]] static bool has_all(Stream& s, const std::vector<std::size_t>& accepted);
  void read_sse(Stream& s, std::string buffered);
  void read_ws(Stream& s, std::string buffered);
  static void take_event(Stream& s, std::string_view data);

  io::Endpoint server_;
  std::string topic_;
  Stream sse_;
  Stream ws_;
  std::atomic<bool> stopping_{false};
};

}  // namespace sluice::bench
