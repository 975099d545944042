#include "sol_tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cerrno>

#include "transport/tls_error.hpp"

namespace sluice::peers {

using transport::as_socket_result;

SolTls::SolTls(const std::string& cert_file, const std::string& key_file) {
  context_ = transport::make_server_context({.cert_file = cert_file, .key_file = key_file}, {.offer_h2 = false}, error_);
}

SSL* SolTls::accept(int fd) const {
  SSL* ssl = SSL_new(context_.get());
  if (ssl == nullptr) return nullptr;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  SSL_set_accept_state(ssl);
  SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_clear_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
  return ssl;
}

int sol_handshake(SSL* ssl) {
  errno = 0;
  const int n = SSL_do_handshake(ssl);
  if (n == 1) return 1;
  return as_socket_result(ssl, n) < 0 && errno == EAGAIN ? 0 : -1;
}

long sol_tls_read(SSL* ssl, char* into, std::size_t size) {
  errno = 0;
  return as_socket_result(ssl, SSL_read(ssl, into, static_cast<int>(std::min<std::size_t>(size, 1u << 30))));
}

// With partial writes SSL_write returns after each record it wrote; the
// batch goes on record after record until it is all out or the socket is
// full, so that a short write means what it means for send().
long sol_tls_write(SSL* ssl, std::string_view bytes) {
  long total = 0;
  while (!bytes.empty()) {
    errno = 0;
    const long n = as_socket_result(
        ssl, SSL_write(ssl, bytes.data(), static_cast<int>(std::min<std::size_t>(bytes.size(), 1u << 30))));
    if (n <= 0) return total > 0 && errno == EAGAIN ? total : n;
    total += n;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return total;
}

}  // namespace sluice::peers
