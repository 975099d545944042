#include "tls_client.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "transport/tls_error.hpp"

namespace sluice::bench {

namespace {

bool is_ip_address(const std::string& host) {
  unsigned char scratch[16];
  return ::inet_pton(AF_INET, host.c_str(), scratch) == 1 || ::inet_pton(AF_INET6, host.c_str(), scratch) == 1;
}

std::string openssl_error(const std::string& what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return what;
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return what + ": " + text;
}

}  // namespace

std::shared_ptr<const TlsClient> TlsClient::make(const std::string& ca_file, bool verify, const std::string& host,
                                                 std::string& error) {
  auto client = std::make_shared<TlsClient>();
  client->context_ = transport::make_client_context({.ca_file = ca_file, .verify = verify, .alpn = {"http/1.1"}}, error);
  client->host_ = host;
  if (!client->context_) return nullptr;
  error.clear();
  return client;
}

Channel::~Channel() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

std::string Channel::open(int fd, const TlsClient* tls, HttpVersion http) {
  if (ssl_ != nullptr) SSL_free(ssl_);
  ssl_ = nullptr;
  wants_socket_ = false;
  fd_ = fd;
  if (tls == nullptr) return {};
  ERR_clear_error();
  ssl_ = SSL_new(tls->context().get());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) return openssl_error("tls: new connection");
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_clear_mode(ssl_, SSL_MODE_RELEASE_BUFFERS);  // kept: a stream reads all the time
  // A read takes what the socket holds, several records at once, rather
  // than a header and then a body per record: two system calls per 16 KiB
  // would make the client, not the server, the cost being measured.
  SSL_set_read_ahead(ssl_, 1);
  SSL_set_default_read_buffer_len(ssl_, kReadAhead);
  const std::string& host = tls->host();
  const bool ip = is_ip_address(host);
  if (!ip) SSL_set_tlsext_host_name(ssl_, host.c_str());
  if ((SSL_get_verify_mode(ssl_) & SSL_VERIFY_PEER) != 0) {
    const int named =
        ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) : SSL_set1_host(ssl_, host.c_str());
    if (named != 1) return openssl_error("tls: cannot check the certificate against '" + host + "'");
  }
  // The context offers http/1.1; a channel for HTTP/2 offers h2 in its place.
  static constexpr unsigned char kH2[] = {2, 'h', '2'};
  if (http == HttpVersion::h2 && SSL_set_alpn_protos(ssl_, kH2, sizeof kH2) != 0) return openssl_error("tls: alpn");
  if (SSL_connect(ssl_) != 1) {
    const long verified = SSL_get_verify_result(ssl_);
    if (verified != X509_V_OK) {
      ERR_clear_error();
      return std::string("tls handshake: certificate not trusted: ") + X509_verify_cert_error_string(verified);
    }
    return openssl_error(http == HttpVersion::h2 ? "tls handshake asking ALPN for h2 alone" : "tls handshake");
  }
  if (http == HttpVersion::h2) {
    const unsigned char* chosen = nullptr;
    unsigned length = 0;
    SSL_get0_alpn_selected(ssl_, &chosen, &length);
    const std::string_view protocol(reinterpret_cast<const char*>(chosen), chosen == nullptr ? 0 : length);
    if (protocol != "h2") {
      return "tls: the server did not choose h2 by ALPN (" +
             (protocol.empty() ? std::string("it chose none") : "it chose '" + std::string(protocol) + "'") + ")";
    }
  }
  return {};
}

ssize_t Channel::tls_result(int n) { return transport::as_socket_result(ssl_, n); }

ssize_t Channel::read(char* into, std::size_t size) {
  if (ssl_ == nullptr) return ::recv(fd_, into, size, 0);
  errno = 0;
  const int n = SSL_read(ssl_, into, static_cast<int>(std::min<std::size_t>(size, 1u << 30)));
  wants_socket_ = n <= 0 && SSL_get_error(ssl_, n) == SSL_ERROR_WANT_READ;
  return tls_result(n);
}

ssize_t Channel::write(std::string_view bytes) {
  if (ssl_ == nullptr) return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (bytes.empty()) return 0;
  errno = 0;
  return tls_result(SSL_write(ssl_, bytes.data(), static_cast<int>(std::min<std::size_t>(bytes.size(), 1u << 30))));
}

bool Channel::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void Channel::set_read_ahead(bool on) {
  if (ssl_ != nullptr) SSL_set_read_ahead(ssl_, on ? 1 : 0);
}

bool Channel::buffered() const { return ssl_ != nullptr && !wants_socket_ && SSL_has_pending(ssl_) == 1; }

}  // namespace sluice::bench
