// Owns: SolTls, the speed-of-light server's TLS (--tls-cert/--tls-key):
// the server context (the one sluiced builds, HTTP/1.1 only in ALPN), one
// OpenSSL connection per accepted socket, its handshake driven by the
// socket's readiness, and reads and writes with recv()/send()'s answers.
//
// What it adds to the clear-text server is only what TLS cannot do
// without: every byte of a round's batch is encrypted per subscriber, in
// records of up to 16 KiB, SSL_write after SSL_write (each returns after
// the record it wrote) until the batch is out or the socket is full. OpenSSL keeps its buffers between
// writes (no release when idle: a stream is never idle here) and writes
// partially, so a full socket takes the records it can and the rest of the
// batch waits for EPOLLOUT, as in clear.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "transport/tls_context.hpp"

namespace sluice::peers {

class SolTls {
 public:
  // Loads the certificate and key; error() says why not.
  SolTls(const std::string& cert_file, const std::string& key_file);

  [[nodiscard]] const std::string& error() const { return error_; }

  // A server-side connection on `fd`, handshake not yet made; null on failure.
  [[nodiscard]] SSL* accept(int fd) const;

 private:
  transport::TlsContext context_;
  std::string error_;
};

// Drives `ssl`'s handshake on as far as the socket allows: 1 done, 0 it
// waits for the socket, -1 failed.
[[nodiscard]] int sol_handshake(SSL* ssl);

// recv()/send() over TLS: bytes, 0 at the end (read only), -1 with errno
// (EAGAIN when the socket must be ready first). A write takes record
// after record until all went or the socket is full.
[[nodiscard]] long sol_tls_read(SSL* ssl, char* into, std::size_t size);
[[nodiscard]] long sol_tls_write(SSL* ssl, std::string_view bytes);

}  // namespace sluice::peers
