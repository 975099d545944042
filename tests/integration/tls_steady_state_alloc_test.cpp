// Publishing and delivering over TLS allocates nothing on sluice's side
// once warm: the flush hands the same gather list to the TlsTransport,
// which packs it into records through the thread's staging buffer. Counted
// with operator new (OpenSSL's own record buffers go through malloc and
// are described in docs/TRANSPORT.md). The clients are plain OpenSSL calls
// on blocking sockets, reading into stack buffers.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>

#include "alloc_counter.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

// A verifying TLS client on a blocking socket (a 10 s receive timeout
// bounds every read).
class BlockingTlsClient {
 public:
  BlockingTlsClient(std::uint16_t port, const std::string& ca_file) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval limit{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return;
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    SSL_set1_host(ssl_, "127.0.0.1");
    connected_ = SSL_connect(ssl_) == 1;
  }
  ~BlockingTlsClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    ::close(fd_);
  }
  BlockingTlsClient(const BlockingTlsClient&) = delete;
  BlockingTlsClient& operator=(const BlockingTlsClient&) = delete;

  [[nodiscard]] bool connected() const { return connected_; }
  bool send(const std::string& bytes) {
    return SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size())) == static_cast<int>(bytes.size());
  }
  // Reads until the two-byte marker `a b` has been seen `want` times.
  bool count_markers(char a, char b, std::size_t want) {
    char chunk[16384];
    std::size_t seen = 0;
    while (seen < want) {
      const int n = SSL_read(ssl_, chunk, sizeof chunk);
      if (n <= 0) return false;
      for (int i = 0; i < n; ++i) {
        if (prev_ == a && chunk[i] == b) ++seen;
        prev_ = chunk[i];
      }
    }
    return true;
  }

 private:
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool connected_ = false;
  char prev_ = 0;
};

TEST(TlsSteadyState, PublishingAndDeliveringOverTlsAllocatesNothingOfOurs) {
  constexpr int kBatch = 50;
  constexpr int kRounds = 20;
  TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const ServerCert cert = certs.server("steady");
  ASSERT_FALSE(cert.cert_file.empty()) << certs.error();
  server::Config config;
  config.listen = "127.0.0.1:0";
  config.tls.cert_file = cert.cert_file;
  config.tls.key_file = cert.key_file;
  RunningServer server(without_system_feed(config));

  std::vector<std::unique_ptr<BlockingTlsClient>> subs;
  for (int i = 0; i < 10; ++i) {
    subs.push_back(std::make_unique<BlockingTlsClient>(server.port(), certs.ca_file()));
    ASSERT_TRUE(subs.back()->connected());
    ASSERT_TRUE(subs.back()->send("GET /sse/steady HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    ASSERT_TRUE(subs.back()->count_markers('\n', '\n', 1));  // "retry: N" after the head
  }
  std::string batch;
  for (int i = 0; i < kBatch; ++i) {
    batch += "POST /pub/steady?event=tick HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 64\r\n\r\n" + std::string(64, 'e');
  }
  BlockingTlsClient publisher(server.port(), certs.ca_file());
  ASSERT_TRUE(publisher.connected());
  const auto round = [&] {
    bool ok = publisher.send(batch);
    ok = publisher.count_markers('}', '\n', kBatch) && ok;  // one JSON reply per POST
    for (auto& sub : subs) ok = sub->count_markers('\n', '\n', kBatch) && ok;
    return ok;
  };
  const SteadyState run = run_steady_state(kRounds, round);
  ASSERT_TRUE(run.warmed);
  EXPECT_TRUE(run.all_delivered);
  EXPECT_EQ(run.allocations, 0u) << "heap allocations while publishing " << kBatch * kRounds << " events over TLS to "
                        << subs.size() << " subscribers";
}

}  // namespace
}  // namespace sluice::test
