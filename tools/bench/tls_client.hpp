// Owns: the bench's side of TLS. TlsClient is the context a run verifies
// its TLS servers with (the CA it made for the run, or none at all when
// the user says --tls-insecure), and Channel the bytes of one connection
// read and written either straight on the socket or through OpenSSL, with
// the same answers as recv()/send() so that a session does not care which.
//
// A channel is opened on a connected, still blocking socket: the TLS
// handshake is made there and then (loopback answers at once), and the
// session turns the socket non-blocking afterwards, as it does in clear.
// Non-blocking, OpenSSL's "want read"/"want write" is EAGAIN: the caller
// waits for the socket as it would in clear. Partial writes are enabled
// and a write may be retried from a moved buffer, so a short write
// resumes from where it stopped exactly like send()'s.
//
// A channel asks ALPN for HTTP/1.1 or for HTTP/2 alone: a reader of HTTP/2
// frames over TLS must be sure the server chose h2 (RFC 9113 §3.2), so
// the handshake of such a channel fails when it did not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "transport/tls_context.hpp"

namespace sluice::bench {

// The HTTP a connection speaks: over TLS, what it asks for by ALPN.
enum class HttpVersion : std::uint8_t { http1, h2 };

class TlsClient {
 public:
  // Trusts the CAs in `ca_file`, or nothing is checked when `verify` is
  // false. The server's certificate must name `host` (an IP address or a
  // DNS name). Empty error on success.
  [[nodiscard]] static std::shared_ptr<const TlsClient> make(const std::string& ca_file, bool verify,
                                                             const std::string& host, std::string& error);

  [[nodiscard]] const transport::TlsContext& context() const { return context_; }
  [[nodiscard]] const std::string& host() const { return host_; }

 private:
  transport::TlsContext context_;
  std::string host_;
};

class Channel {
 public:
  // What one TLS read may take from the socket beyond the record it needs.
  static constexpr std::size_t kReadAhead = 64 * 1024;

  Channel() = default;
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Reads and writes `fd` (connected, blocking; the caller keeps owning
  // and closes it), through a TLS handshake made now when `tls` is set,
  // offering `http` alone by ALPN (h2 must then be chosen). Empty on
  // success, else why the handshake failed. Forgets the connection it had
  // before, if any.
  [[nodiscard]] std::string open(int fd, const TlsClient* tls, HttpVersion http = HttpVersion::http1);

  // recv(): bytes read, 0 at the end of the stream, -1 with errno (EAGAIN
  // when the socket has nothing whole to give yet).
  [[nodiscard]] ssize_t read(char* into, std::size_t size);
  // send(MSG_NOSIGNAL): bytes taken, or -1 with errno (EAGAIN when full).
  [[nodiscard]] ssize_t write(std::string_view bytes);
  // write() until all of `bytes` went, on a blocking socket. False on error.
  [[nodiscard]] bool write_all(std::string_view bytes);
  // Whether OpenSSL may hold a record to hand out that the socket will not
  // say is readable (read ahead with the one before it), so a poller reads
  // before it waits. False after a read that wanted more from the socket:
  // what OpenSSL holds then is the start of a record, and reading again
  // before the rest arrives would only spin.
  [[nodiscard]] bool buffered() const;

  // Over TLS, whether a read takes all the socket holds (the default) or
  // one record at a time, leaving the rest in the socket's receive buffer
  // as a reader in clear that reads little at a time does.
  void set_read_ahead(bool on);

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] bool tls() const { return ssl_ != nullptr; }

 private:
  [[nodiscard]] ssize_t tls_result(int n);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool wants_socket_ = false;  // the last read stopped for want of bytes
};

}  // namespace sluice::bench
