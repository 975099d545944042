// Owns: Link, the client's TCP connection, encrypted for https:// and
// wss://: a non-blocking socket whose every wait is a poll() with a
// deadline that also watches the client's Wake, so that stop() and
// reconnect() interrupt a connect, a handshake, a read or a write at once.
//
// Over TLS the same calls carry plaintext: receive() decrypts, send_some()
// encrypts (a record the socket had no room for waits in the link:
// holds_output(), pushed by the next send_some(), even an empty one), and
// wait() also reports input OpenSSL has already decrypted.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sluice/client/status.hpp"
#include "sluice/client/url.hpp"
#include "transport/tls_context.hpp"
#include "transport/tls_stream.hpp"
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
  // own thread); both must outlive the Link. An `interrupt` without a
  // `wake` (one a signal handler sets) is looked at every 100 ms of a wait
  // and whenever a signal interrupts it.
  Link(Wake* wake, const std::atomic<bool>* interrupt);
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // Resolves the host (a name lookup cannot be interrupted) and connects
  // within `timeout`; for a TLS URL, `tls` (which must outlive the link)
  // then does the handshake within the same time. Errors: refused,
  // connect_failed (resolution, timeout, other errno), aborted
  // (interrupted), tls (the server's certificate, no shared version or
  // protocol), io_error (the socket failed during the handshake).
  // receive_buffer > 0 sets SO_RCVBUF.
  [[nodiscard]] ClientError connect(const Url& url, std::chrono::milliseconds timeout, int receive_buffer,
                                    const transport::TlsContext* tls = nullptr);

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
  // Why the last error happened when TLS says it better than errno; else empty.
  [[nodiscard]] const std::string& tls_failure() const { return tls_failure_; }
  // The server chose HTTP/2 (ALPN "h2").
  [[nodiscard]] bool speaks_h2() const;
  // A TLS record waits for room in the socket.
  [[nodiscard]] bool holds_output() const { return tls_ != nullptr && tls_->holds_output(); }
  void close();

 private:
  int try_connect(const void* address, unsigned length, int family, std::chrono::milliseconds timeout,
                  int receive_buffer);
  ClientError handshake(const Url& url, const transport::TlsContext& tls, std::chrono::milliseconds timeout);
  IoResult tls_receive(std::span<char> into, std::size_t& got);
  IoResult tls_send(std::string_view bytes, std::size_t& sent);
  IoResult on_wake();

  Wake* wake_;
  const std::atomic<bool>* interrupt_;
  int fd_ = -1;
  int errno_ = 0;
  std::unique_ptr<transport::TlsStream> tls_;
  std::string tls_failure_;
};

// "what: strerror(err)" as a ClientError of `kind`.
[[nodiscard]] ClientError errno_error(ErrorKind kind, std::string_view what, int err);

// The ClientError for a read or write that ended with `result` (not ok).
[[nodiscard]] ClientError io_result_error(IoResult result, const Link& link, std::string_view during);

}  // namespace sluice::client::detail
