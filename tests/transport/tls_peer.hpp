// Owns: the pieces TLS tests stand on: a loopback TCP pair, a client made
// of OpenSSL calls alone (SSL_connect, SSL_read, SSL_write; none of
// sluice's TLS code), and pump(), which repeats a step, waiting on the
// sockets between tries, until it is done or a generous deadline passes.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "transport/tls_stream.hpp"

namespace sluice::transport::test {

using namespace std::chrono_literals;

// A connected loopback TCP pair, both ends non-blocking.
struct TcpPair {
  TcpPair();
  ~TcpPair();
  TcpPair(const TcpPair&) = delete;
  TcpPair& operator=(const TcpPair&) = delete;
  void close_server();

  int server = -1;
  int client = -1;
};

// Calls `step` until it returns true, polling `fds` for input and
// `writable_fds` for room to write (at most 20 ms at a time) between
// tries. False when `limit` passed first.
bool pump(const std::function<bool()>& step, std::initializer_list<int> fds, std::chrono::milliseconds limit = 10s,
          std::initializer_list<int> writable_fds = {});

struct ClientOptions {
  std::string ca_file;            // empty: verification off
  std::vector<std::string> alpn;  // offered, in order; empty: no ALPN extension
  std::string host = "localhost";
  int min_version = 0;            // 0: OpenSSL's default
  int max_version = 0;
  int security_level = -1;        // -1: OpenSSL's default
  SSL_SESSION* session = nullptr;  // resume this session
};

class OpenSslClient {
 public:
  OpenSslClient(int fd, const ClientOptions& options);
  ~OpenSslClient();
  OpenSslClient(const OpenSslClient&) = delete;
  OpenSslClient& operator=(const OpenSslClient&) = delete;

  // One SSL_connect step: true once connected; failed() after an error.
  bool connect_step();
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  // The description of the last alert the server sent (-1: none).
  [[nodiscard]] int alert_received() const { return alert_; }
  [[nodiscard]] std::string alpn() const;
  [[nodiscard]] std::string peer_serial() const;  // hex
  [[nodiscard]] SSL* ssl() const { return ssl_; }

  // Sends all of `bytes` (pumping as needed); false on error.
  bool write_all(const std::string& bytes);
  // Reads whatever has arrived into received(); false once the stream
  // ended or failed (eof() tells which).
  bool read_available();
  [[nodiscard]] bool eof() const { return eof_; }
  std::string& received() { return received_; }

 private:
  static void on_info(const SSL* ssl, int where, int value);

  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_;
  bool failed_ = false;
  bool eof_ = false;
  int alert_ = -1;
  std::string error_;
  std::string received_;
};

// Handshakes `server` and `client` against each other. True when both
// finished; false when either failed (see their errors) or time ran out.
bool handshake(TlsStream& server, OpenSslClient& client, TcpPair& pair);

// Reads from `server` until `want` bytes arrived into `out`.
bool server_read(TlsStream& server, std::string& out, std::size_t want, int fd);

}  // namespace sluice::transport::test
