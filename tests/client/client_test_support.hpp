// Owns: helpers for the client tests: a FakeServer on 127.0.0.1 whose
// connections the test scripts byte by byte (a garbage server, a server
// that checks what the client sends), a closed port, and waits with a
// deadline on a condition. None of them sleeps to synchronise.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace sluice::client::test {

using namespace std::chrono_literals;

// Polls `done` until it holds or `limit` passes; returns its last answer.
bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s);

// One accepted connection of a FakeServer.
class Peer {
 public:
  explicit Peer(int fd) : fd_(fd) {}
  ~Peer();
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  void send(std::string_view bytes);
  // Reads until the buffer holds `needle`; false on EOF or timeout.
  bool read_until(std::string_view needle, std::chrono::milliseconds limit = 10s);
  // Reads until at least `n` bytes are buffered; false on EOF or timeout.
  bool read_at_least(std::size_t n, std::chrono::milliseconds limit = 10s);
  // Reads until the client closes; false on timeout.
  bool read_until_closed(std::chrono::milliseconds limit = 10s);
  std::string& buffer() { return buffer_; }
  void close();

 private:
  bool read_some(std::chrono::milliseconds limit);

  int fd_;
  bool eof_ = false;
  std::string buffer_;
};

class FakeServer {
 public:
  FakeServer();
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  // The next connection, or null when none came within `limit`.
  std::unique_ptr<Peer> accept(std::chrono::milliseconds limit = 10s);

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

// A port on 127.0.0.1 that nothing listens on while the tests run: a
// socket bound to it and never listening holds it, so a connection is
// refused (a port bound and closed again could be taken by a parallel test).
std::uint16_t closed_port();

// An SSE response head as sluiced sends it, plus a retry field.
std::string sse_head(int retry_ms);

// The sequence number of an id: the digits after the last ':', or the whole
// id when it has no ':' (the ids of a server from before EPOCH:SEQ).
std::uint64_t seq_of(std::string_view id);

// "http://127.0.0.1:PORT" + path, and the ws:// form.
std::string http_url(std::uint16_t port, std::string_view path);
std::string ws_url(std::uint16_t port, std::string_view path);

}  // namespace sluice::client::test
