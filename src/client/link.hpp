// Owns: Link, the client's TCP connection: a non-blocking socket whose
// every wait is a poll() with a deadline that also watches the client's
// Wake, so that stop() and reconnect() interrupt a connect, a read or a
// write at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <span>
#include <string_view>

#include "sluice/client/status.hpp"
#include "sluice/client/url.hpp"
#include "wake.hpp"

namespace sluice::client::detail {

enum class IoResult : unsigned char {
  ok,
  eof,          // the peer closed its side
  timeout,      // the deadline passed
  woken,        // the Wake fired without an interrupt: the caller has work to look at
  interrupted,  // the Wake fired and *interrupt is set: give up this connection
  error,        // see last_errno()
};

class Link {
 public:
  // `wake` and `interrupt` may be null (a Link used from the application's
  // own thread); both must outlive the Link.
  Link(Wake* wake, const std::atomic<bool>* interrupt);
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // Resolves the host (a name lookup cannot be interrupted) and connects
  // within `timeout`. Errors: refused, connect_failed (resolution, timeout,
  // other errno), aborted (interrupted). receive_buffer > 0 sets SO_RCVBUF.
  [[nodiscard]] ClientError connect(const Url& url, std::chrono::milliseconds timeout, int receive_buffer);

  // Waits for input (and for room to write, with `want_write`) for at most
  // `timeout` (negative: no limit). On ok, `readable`/`writable` say which.
  IoResult wait(bool want_write, std::chrono::milliseconds timeout, bool& readable, bool& writable);
  // One recv() without waiting: ok with got > 0, ok with got == 0 when
  // nothing is there yet, eof or error.
  IoResult receive(std::span<char> into, std::size_t& got);
  // One send() without waiting: ok with the bytes the kernel took (maybe 0).
  IoResult send_some(std::string_view bytes, std::size_t& sent);

  // Waits for input for at most `timeout` (negative: no limit), then reads.
  IoResult read(std::span<char> into, std::size_t& got, std::chrono::milliseconds timeout);
  // Sends all of `bytes` within `timeout`.
  IoResult write_all(std::string_view bytes, std::chrono::milliseconds timeout);

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  [[nodiscard]] int last_errno() const { return errno_; }
  void close();

 private:
  int try_connect(const void* address, unsigned length, int family, std::chrono::milliseconds timeout,
                  int receive_buffer);
  IoResult on_wake();

  Wake* wake_;
  const std::atomic<bool>* interrupt_;
  int fd_ = -1;
  int errno_ = 0;
};

// "what: strerror(err)" as a ClientError of `kind`.
[[nodiscard]] ClientError errno_error(ErrorKind kind, std::string_view what, int err);

// The ClientError for a read or write that ended with `result` (not ok).
[[nodiscard]] ClientError io_result_error(IoResult result, const Link& link, std::string_view during);

}  // namespace sluice::client::detail
