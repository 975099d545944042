// Owns: TlsStream, one TLS connection over a non-blocking socket it does
// not own: the handshake, decrypting what arrives into the caller's
// buffer, and encrypting a flush's gather list into full records.
//
// Batching survives encryption. writev() takes the iovecs of a flush (as
// many queued frames as OutQueue gathers) and packs them into records of
// up to 16 KiB of plaintext, one SSL_write each, copying through one
// staging buffer: a hundred 64-byte events leave as one record and one
// send(), not a hundred of each.
//
// Bytes taken are counted as the kernel counts them for a plain socket. A
// byte is taken once it is inside a record that OpenSSL has sent or that
// this stream holds for a retry, so OutQueue releases frames exactly as it
// does over TCP. OpenSSL requires a retried SSL_write to pass the same
// bytes, so a record the socket had no room for stays in the staging
// buffer (holds_output()): the owner keeps waiting for writability and
// calls writev() again, with more iovecs or none, which sends that record
// first. An OutQueue that reports drained is therefore done only when
// holds_output() is false too.
//
// Progress never blocks: handshake(), read() and writev() return at once
// with what they need (want_read / want_write, or -EAGAIN). The handshake
// deadline is the caller's: it owns the timers.
//
// Memory per connection: the SSL object and its handshake state (a few
// KiB, measured in tls_stream_test), and nothing else while idle: OpenSSL
// gives its read and write buffers back (SSL_MODE_RELEASE_BUFFERS) and the
// staging buffer goes back to the thread's cache. A connection with a
// record waiting for the socket holds the staging buffer (16 KiB) and
// OpenSSL's encrypted copy (about 17 KiB) until it is sent; one whose
// client sent part of a record holds OpenSSL's read buffer (about 17 KiB)
// until the rest comes. buffered_bytes() says which of those it holds now,
// for the server's memory cap; never more than kMostBuffered (about 50
// KiB), a bound of the transport's own, so they are charged apart from the
// connection's share, which judges a request over TLS exactly as over TCP.
// OpenSSL allocates from one
// process-wide heap and does not say what one connection holds, so each
// record buffer is counted at kRecordBufferEstimate, the size OpenSSL 3
// gives it (a record's plaintext, its encryption overhead, the header and
// alignment); tls_stream_test measures OpenSSL's heap with one buffer held
// and keeps the figure honest.
//
// Kernel TLS is where the record layer would move: with a kernel that
// lists "tls" in tcp_available_ulp, OpenSSL's own socket BIO and
// SSL_OP_ENABLE_KTLS hand the keys to the socket after the handshake, and
// writev() could give the iovecs to sendmsg() as they are, with no staging
// copy and no SSL_write. kernel_tls_available() tells which path a machine
// could take; only the user-space one exists here.
#pragma once

#include <openssl/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "conn/writer.hpp"
#include "transport/tls_context.hpp"
#include "transport/tls_socket_bio.hpp"
#include "transport/tls_staging.hpp"

namespace sluice::transport {

enum class TlsStatus : std::uint8_t {
  ok,
  want_read,   // wait until the socket is readable, then call again
  want_write,  // wait until the socket is writable, then call again
  eof,         // the peer closed the connection (with or without close_notify)
  read_again,  // a server's read ended with a record that held no data (the socket may hold more): call again
  failed,      // see error(); the connection is over (an alert went out when one applies)
};

// What the connection speaks once the handshake is done (ALPN).
enum class AppProtocol : std::uint8_t { http1, h2 };

// What one of OpenSSL's record buffers (read or write) takes on the heap:
// a record's 16,384 bytes of plaintext, its encryption overhead, the header
// and alignment; tls_stream_test measures 16,712 bytes for the read buffer
// and 16,584 for the write buffer with OpenSSL 3.0. Rounded up.
inline constexpr std::size_t kRecordBufferEstimate = 17 * 1024;
// The most buffered_bytes() can be: both record buffers and the staging buffer.
inline constexpr std::size_t kMostBuffered = 2 * kRecordBufferEstimate + kMaxRecordPlaintext;

class TlsStream final : public conn::Writer {
 public:
  // The server side of a connection accepted on `fd`; `http11_only`: its
  // ALPN never chooses h2 (offer_http11_only()).
  TlsStream(const TlsContext& context, int fd, bool http11_only = false);
  // The client side: `host` goes out as SNI when it is a name (not an
  // address) and, when the context verifies, must be what the server's
  // certificate names (DNS name or IP address).
  TlsStream(const TlsContext& context, int fd, const std::string& host);
  ~TlsStream() override;
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // False when the SSL object could not be made (error() says why).
  [[nodiscard]] bool valid() const { return ssl_ != nullptr; }

  // Moves the handshake on. ok once it is complete; failed with error()
  // naming the reason (unsupported protocol version, no shared ALPN
  // protocol, certificate verification, a malformed message).
  [[nodiscard]] TlsStatus handshake();
  [[nodiscard]] bool established() const { return established_; }
  // ALPN's answer; http1 when the client offered no ALPN.
  [[nodiscard]] AppProtocol protocol() const;
  [[nodiscard]] bool resumed() const;

  // Decrypts into `into`: ok with got > 0, or want_read (nothing complete
  // yet), want_write (OpenSSL must send first), read_again, eof or failed.
  // A malformed record is answered with a fatal alert before failed comes
  // back.
  //
  // On the server side a read stops at the first record it takes that
  // carries no application data (a TLS 1.3 KeyUpdate, an alert OpenSSL
  // reads past) and returns read_again: OpenSSL's automatic retry
  // (SSL_MODE_AUTO_RETRY), which would read on through any number of them
  // within one call, is cleared once the handshake is done. A client
  // streaming such records thus hands the loop back after each one, and
  // read_cost() says what the read is to count against its turn.
  [[nodiscard]] TlsStatus read(std::span<char> into, std::size_t& got);
  // What the last read() is to count against the connection's read turn:
  // the bytes it took from the socket (headers, padding and tags included),
  // and at least a whole record's plaintext when it returned read_again.
  [[nodiscard]] std::size_t read_cost() const { return read_cost_; }

  // conn::Writer: see the banner. Returns the bytes taken, -EAGAIN when the
  // socket has no room (nothing taken), or -errno (-EPROTO for a TLS
  // failure). Only after the handshake.
  long writev(const struct iovec* iov, int count) override;
  // A record is waiting for the socket: stay armed for writability.
  [[nodiscard]] bool holds_output() const { return held_ > 0; }
  // Decrypted bytes are waiting in OpenSSL: read() has more without the
  // socket becoming readable again (a poll() would not say so).
  [[nodiscard]] bool has_buffered_input() const;
  // The record buffers held now, past the idle connection's state: OpenSSL's
  // read buffer while a record is partly in (or decrypted bytes wait), its
  // write buffer and the staging buffer while a record waits for the socket.
  [[nodiscard]] std::size_t buffered_bytes() const;
  // What a read may add to buffered_bytes(): the read buffer, unless held.
  [[nodiscard]] std::size_t read_reserve() const;
  // Holds the next read() to the record at the head of the socket, when
  // that record is there whole and its plaintext fits `room`: OpenSSL then
  // takes its read buffer and gives it back within the call (it keeps the
  // buffer only while it holds bytes it has not handed out), so the read
  // adds nothing to buffered_bytes() and needs no reservation. False when
  // no such read can be made (no record there whole, a record partly read
  // already, too little room); a system call or two to look.
  [[nodiscard]] bool confine_next_read(std::size_t room);
  // Holds the next read() to the record at the head of the socket, when
  // that record is there whole, however short the caller's buffer: OpenSSL
  // decrypts the record whole, hands out what fits and keeps the rest in
  // its read buffer (buffered_bytes() counts it) until the next read. The
  // read takes nothing past that record, so what it leaves held is at most
  // one record's plaintext, and only for as long as the caller takes to
  // read again. False when no record is there whole (or one is partly read).
  [[nodiscard]] bool confine_next_read_to_record();
  // The room confine_next_read() needs: the longest plaintext the record
  // at the head of the socket may carry, when it is there whole and no
  // record is partly read; else 0.
  [[nodiscard]] std::size_t whole_record_plaintext() const;

  // Sends close_notify (once). ok when sent, want_write to try again.
  [[nodiscard]] TlsStatus shutdown();

  [[nodiscard]] const std::string& error() const { return error_; }
  // The failure came from the socket (reset, closed in the middle of the
  // handshake), not from TLS itself: worth another connection.
  [[nodiscard]] bool failed_on_socket() const { return socket_failed_; }
  // Records written (one per SSL_write) and system calls made.
  [[nodiscard]] std::uint64_t records_written() const { return records_; }
  [[nodiscard]] const SocketBioCounters& socket_calls() const { return bio_.counters; }
  // Reads from the socket note when their bytes arrived (conn::Transport's
  // note_arrivals, last_arrival).
  bool note_arrivals();
  [[nodiscard]] std::int64_t last_arrival() const { return bio_.arrival; }
  // Bytes wait that no read() has handed over: a record's plaintext that
  // OpenSSL holds (taken from the socket by the last read, so noted no
  // earlier than it came) or the socket's (conn::Transport::unread_input).
  [[nodiscard]] bool unread_input(std::int64_t& arrival) const;
  // The SSL object, for a look at the peer's certificate or the version.
  [[nodiscard]] SSL* ssl() const { return ssl_; }

 private:
  bool attach(const TlsContext& context, int fd);
  TlsStatus fail(const char* during);
  TlsStatus status_of(int result, const char* during);
  long send_held();
  std::size_t stage(const struct iovec* iov, int count, std::size_t skip);
  [[nodiscard]] std::size_t whole_record_waiting() const;
  void confine_to(std::size_t length);

  SocketBioState bio_;
  SSL* ssl_ = nullptr;
  StagingBuffer staging_;
  std::size_t held_ = 0;  // bytes of staging_ in a record OpenSSL has not sent yet
  bool established_ = false;
  bool shut_ = false;
  std::uint64_t records_ = 0;
  std::size_t read_cost_ = 0;
  int socket_errno_ = 0;  // the system error that ended the connection, if one did
  bool socket_failed_ = false;
  std::string error_;
};

// True when this kernel could take over the record layer (kernel TLS).
[[nodiscard]] bool kernel_tls_available();

}  // namespace sluice::transport
