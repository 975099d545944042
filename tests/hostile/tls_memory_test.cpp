// A TLS client that sends the start of a record and never its end makes
// OpenSSL keep a record buffer for its connection (about 17 KiB) for as
// long as it likes. The connection charges it to its memory account as
// soon as it is held: many such clients together meet limits.server_bytes
// and the ones past it are closed, the total stays under the cap, and the
// charge goes back when a connection closes. OpenSSL's calls alone play
// the client; the record's start is written past it, straight to the
// socket.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "eventually.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"
#include "tls_peer.hpp"

namespace sluice::test {
namespace {

using transport::test::ClientOptions;
using transport::test::OpenSslClient;

constexpr std::size_t kKiB = 1024;

int connect_nonblocking(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// One TLS client that has sent the first 1,000 bytes of a 16,640-byte
// application-data record.
struct HalfRecordClient {
  HalfRecordClient(std::uint16_t port, const std::string& ca_file) : fd(connect_nonblocking(port)) {
    if (fd < 0) return;
    tls = std::make_unique<OpenSslClient>(fd, ClientOptions{.ca_file = ca_file, .alpn = {"http/1.1"}});
    connected = transport::test::pump([&] { return tls->connect_step() || tls->failed(); }, {fd}) && !tls->failed();
    if (!connected) return;
    std::string partial = {0x17, 0x03, 0x03, 0x41, 0x00};
    partial += std::string(1000, 'p');
    sent = ::send(fd, partial.data(), partial.size(), 0) == static_cast<ssize_t>(partial.size());
  }
  ~HalfRecordClient() {
    tls.reset();
    if (fd >= 0) ::close(fd);
  }
  HalfRecordClient(const HalfRecordClient&) = delete;
  HalfRecordClient& operator=(const HalfRecordClient&) = delete;

  // The server closed the connection.
  bool closed_by_server() {
    char byte;
    const ssize_t n = ::recv(fd, &byte, 1, 0);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

  int fd;
  std::unique_ptr<OpenSslClient> tls;
  bool connected = false;
  bool sent = false;
};

TEST(TlsMemory, HalfRecordsAreChargedAndThoseBeyondTheServersCapClosed) {
  TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const ServerCert cert = certs.server("localhost");
  ASSERT_FALSE(cert.cert_file.empty()) << certs.error();
  // Room for two record buffers (17 KiB each), not three.
  constexpr std::size_t kServerBytes = 40 * kKiB;
  server::Config config;
  config.threads = 1;
  config.tls.cert_file = cert.cert_file;
  config.tls.key_file = cert.key_file;
  config.server_memory_bytes = static_cast<std::int64_t>(kServerBytes);
  RunningServer server(config);

  std::vector<std::unique_ptr<HalfRecordClient>> clients;
  for (int i = 0; i < 2; ++i) {
    clients.push_back(std::make_unique<HalfRecordClient>(server.port(), certs.ca_file()));
    ASSERT_TRUE(clients.back()->connected && clients.back()->sent) << i;
    const std::size_t expected = (i + 1) * 17 * kKiB;
    ASSERT_TRUE(eventually([&] { return server.server().memory_stats().charged >= expected; }))
        << "charged " << server.server().memory_stats().charged << " after " << i + 1 << " half records";
  }
  // The third finds no room: closed, and the total stays under the cap.
  auto third = std::make_unique<HalfRecordClient>(server.port(), certs.ca_file());
  ASSERT_TRUE(third->connected && third->sent);
  EXPECT_TRUE(eventually([&] { return third->closed_by_server(); }));
  EXPECT_GE(server.server().memory_stats().refused_by_server, 1u);
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  // The two held go on holding; once they leave, nothing is charged.
  EXPECT_FALSE(clients[0]->closed_by_server());
  clients.clear();
  third.reset();
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after close: " << server.server().memory_stats().charged;
}

}  // namespace
}  // namespace sluice::test
