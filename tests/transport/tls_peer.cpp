#include "tls_peer.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <vector>

#include "io/socket.hpp"

namespace sluice::transport::test {

namespace {

using Clock = std::chrono::steady_clock;

std::string openssl_reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
  return reason != nullptr ? reason : "(no reason)";
}

}  // namespace

TcpPair::TcpPair() {
  const int listener = io::listen_tcp({"127.0.0.1", 0}, {});
  if (listener < 0) return;
  client = io::connect_tcp({"127.0.0.1", io::local_port(listener)});
  pollfd pending{listener, POLLIN, 0};
  if (client >= 0 && ::poll(&pending, 1, 10000) == 1) server = io::accept_nonblocking(listener);
  ::close(listener);
  if (client >= 0) (void)io::set_nonblocking(client, true);
}

TcpPair::~TcpPair() {
  close_server();
  if (client >= 0) ::close(client);
}

void TcpPair::close_server() {
  if (server >= 0) ::close(server);
  server = -1;
}

bool pump(const std::function<bool()>& step, std::initializer_list<int> fds, std::chrono::milliseconds limit,
          std::initializer_list<int> writable_fds) {
  const auto deadline = Clock::now() + limit;
  std::vector<pollfd> polled;
  for (const int fd : fds) polled.push_back({fd, POLLIN, 0});
  for (const int fd : writable_fds) polled.push_back({fd, POLLOUT, 0});
  while (!step()) {
    if (Clock::now() >= deadline) return false;
    ::poll(polled.data(), polled.size(), 20);
  }
  return true;
}

OpenSslClient::OpenSslClient(int fd, const ClientOptions& options) : fd_(fd) {
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (options.security_level >= 0) SSL_CTX_set_security_level(ctx_, options.security_level);
  if (options.min_version != 0) SSL_CTX_set_min_proto_version(ctx_, options.min_version);
  if (options.max_version != 0) SSL_CTX_set_max_proto_version(ctx_, options.max_version);
  if (!options.ca_file.empty()) {
    SSL_CTX_load_verify_file(ctx_, options.ca_file.c_str());
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  }
  std::string wire;
  for (const std::string& name : options.alpn) wire.append(1, static_cast<char>(name.size())).append(name);
  if (!wire.empty()) {
    SSL_CTX_set_alpn_protos(ctx_, reinterpret_cast<const unsigned char*>(wire.data()),
                            static_cast<unsigned>(wire.size()));
  }
  SSL_CTX_set_info_callback(ctx_, on_info);
  ssl_ = SSL_new(ctx_);
  SSL_set_app_data(ssl_, this);
  SSL_set_fd(ssl_, fd);
  SSL_set_tlsext_host_name(ssl_, options.host.c_str());
  if (!options.ca_file.empty()) SSL_set1_host(ssl_, options.host.c_str());
  if (options.session != nullptr) SSL_set_session(ssl_, options.session);
}

OpenSslClient::~OpenSslClient() {
  SSL_free(ssl_);
  SSL_CTX_free(ctx_);
}

void OpenSslClient::on_info(const SSL* ssl, int where, int value) {
  if ((where & SSL_CB_READ_ALERT) == 0) return;
  static_cast<OpenSslClient*>(SSL_get_app_data(ssl))->alert_ = value & 0xff;
}

bool OpenSslClient::connect_step() {
  if (failed_) return false;
  ERR_clear_error();
  const int rc = SSL_connect(ssl_);
  if (rc == 1) return true;
  const int err = SSL_get_error(ssl_, rc);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return false;
  failed_ = true;
  error_ = openssl_reason();
  return false;
}

std::string OpenSslClient::alpn() const {
  const unsigned char* name = nullptr;
  unsigned length = 0;
  SSL_get0_alpn_selected(ssl_, &name, &length);
  return std::string(reinterpret_cast<const char*>(name), length);
}

std::string OpenSslClient::peer_serial() const {
  X509* cert = SSL_get1_peer_certificate(ssl_);
  if (cert == nullptr) return "";
  BIGNUM* serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr);
  char* hex = BN_bn2hex(serial);
  std::string out(hex);
  OPENSSL_free(hex);
  out.erase(0, std::min(out.find_first_not_of('0'), out.size() - 1));
  BN_free(serial);
  X509_free(cert);
  return out;
}

// A write the peer ended (it closed, or reset the connection) ends at once,
// false; what the peer sent before is still there for read_available().
bool OpenSslClient::write_all(const std::string& bytes) {
  std::size_t done = 0;
  bool broken = false;
  return pump(
             [&] {
               std::size_t n = 0;
               ERR_clear_error();
               if (SSL_write_ex(ssl_, bytes.data() + done, bytes.size() - done, &n) == 1) {
                 done += n;
               } else {
                 const int err = SSL_get_error(ssl_, 0);
                 broken = err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE;
               }
               return done == bytes.size() || failed_ || broken;
             },
             {fd_}) &&
         !failed_ && !broken;
}

bool OpenSslClient::read_available() {
  std::array<char, 16384> chunk;
  for (;;) {
    std::size_t n = 0;
    ERR_clear_error();
    if (SSL_read_ex(ssl_, chunk.data(), chunk.size(), &n) == 1) {
      received_.append(chunk.data(), n);
      continue;
    }
    const int err = SSL_get_error(ssl_, 0);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return true;
    eof_ = err == SSL_ERROR_ZERO_RETURN || (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0);
    if (!eof_) error_ = openssl_reason();
    failed_ = !eof_;
    return false;
  }
}

bool handshake(TlsStream& server, OpenSslClient& client, TcpPair& pair) {
  bool server_done = false;
  bool client_done = false;
  pump(
      [&] {
        if (!server_done) {
          const TlsStatus s = server.handshake();
          server_done = s == TlsStatus::ok;
          if (s == TlsStatus::failed) return true;
        }
        if (!client_done) client_done = client.connect_step();
        return (server_done && client_done) || client.failed();
      },
      {pair.server, pair.client});
  return server_done && client_done;
}

bool server_read(TlsStream& server, std::string& out, std::size_t want, int fd) {
  std::array<char, 16384> chunk;
  bool broken = false;
  const bool done = pump(
      [&] {
        for (;;) {
          std::size_t got = 0;
          const TlsStatus s = server.read(chunk, got);
          if (s == TlsStatus::ok) {
            out.append(chunk.data(), got);
            continue;
          }
          broken = s == TlsStatus::eof || s == TlsStatus::failed;
          return broken || out.size() >= want;
        }
      },
      {fd});
  return done && !broken && out.size() >= want;
}

}  // namespace sluice::transport::test
