// A TLS client that streams records carrying no application data (TLS 1.3
// KeyUpdates) must not hold its loop. With OpenSSL's automatic retry one
// read went on through every such record in the socket, counting nothing
// against the connection's turn, so a client that kept its socket full
// kept the loop: every other connection on it waited until the stream
// ended. Now a read takes one such record and counts it as a whole record
// against the turn; after a turn's worth the connection waits in the
// loop's read line like any other.
//
// The attacker's records are made before the attack (OpenSSL writes them
// into memory), so the test sends them as fast as the socket takes them
// and the server, which must decrypt each and derive a key for it, never
// finds its socket empty until the end. Events published early in the
// attack must all reach a subscriber on the same loop before the server
// answers the request at the end of the stream: which of the two the
// server wrote first is what the subscriber's socket holds once the
// answer is in, a matter of order, not of time.
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "eventually.hpp"
#include "io/socket.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"
#include "tls_peer.hpp"

namespace sluice::test {
namespace {

using transport::test::ClientOptions;
using transport::test::OpenSslClient;
using transport::test::pump;

// Connected blocking (so the handshake's first bytes need no wait), then
// switched to non-blocking for the pumps.
int connect_nonblocking(std::uint16_t port) {
  const int fd = io::connect_tcp(io::Endpoint{"127.0.0.1", port});
  if (fd >= 0) io::set_nonblocking(fd, true);
  return fd < 0 ? -1 : fd;
}

// A TLS client over its own non-blocking socket, connected.
struct TlsClient {
  TlsClient(std::uint16_t port, const std::string& ca_file) : fd(connect_nonblocking(port)) {
    if (fd < 0) return;
    tls = std::make_unique<OpenSslClient>(fd, ClientOptions{.ca_file = ca_file, .alpn = {"http/1.1"}});
    connected = pump([&] { return tls->connect_step() || tls->failed(); }, {fd}) && !tls->failed();
  }
  ~TlsClient() {
    tls.reset();
    if (fd >= 0) ::close(fd);
  }
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  int fd;
  std::unique_ptr<OpenSslClient> tls;
  bool connected = false;
};

// `count` KeyUpdate records and then a record with `request`, made by
// `ssl` into memory: from here on its records go out through the caller.
std::string key_updates_then(SSL* ssl, int count, const std::string& request) {
  BIO* memory = BIO_new(BIO_s_mem());
  SSL_set0_wbio(ssl, memory);  // the socket stays the read side
  for (int i = 0; i < count; ++i) {
    if (SSL_key_update(ssl, SSL_KEY_UPDATE_NOT_REQUESTED) != 1 || SSL_do_handshake(ssl) != 1) return {};
  }
  std::size_t written = 0;
  if (SSL_write_ex(ssl, request.data(), request.size(), &written) != 1) return {};
  char* data = nullptr;
  const long length = BIO_get_mem_data(memory, &data);
  return std::string(data, static_cast<std::size_t>(length));
}

// The order the events named event-0 .. event-(count-1) came in `stream`
// (their indices), as far as they came.
std::vector<int> events_in(const std::string& stream, int count) {
  std::vector<int> order;
  std::size_t at = 0;
  while ((at = stream.find("data: event-", at)) != std::string::npos) {
    at += 12;
    const int index = std::atoi(stream.c_str() + at);
    if (index < count) order.push_back(index);
  }
  return order;
}

TEST(TlsRecordFlood, ASubscriberOnTheSameLoopGetsEveryEventWhileAClientStreamsKeyUpdates) {
  TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const ServerCert cert = certs.server("localhost");
  ASSERT_FALSE(cert.cert_file.empty()) << certs.error();
  server::Config config;
  config.threads = 1;
  config.tls.cert_file = cert.cert_file;
  config.tls.key_file = cert.key_file;
  RunningServer server(config);

  TlsClient subscriber(server.port(), certs.ca_file());
  ASSERT_TRUE(subscriber.connected);
  ASSERT_TRUE(subscriber.tls->write_all("GET /sse/news HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(eventually([&] { return server.server().stats().streams == 1; }));

  TlsClient attacker(server.port(), certs.ca_file());
  ASSERT_TRUE(attacker.connected);
  SSL* ssl = attacker.tls->ssl();
  ASSERT_EQ(SSL_version(ssl), TLS1_3_VERSION);
  // 5,000 KeyUpdates, 135 KB; the server reads eight in a turn.
  constexpr int kUpdates = 5000;
  const std::string flood = key_updates_then(ssl, kUpdates, "GET /none HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_GT(flood.size(), kUpdates * 22u);

  // The first 64 KiB start the attack; the events go out while the rest
  // is still to be sent, so they are published before the server can have
  // read the request at its end.
  constexpr int kEvents = 20;
  std::size_t sent = 0;
  int published = 0;
  const bool all_sent = pump(
      [&] {
        for (;;) {
          if (published == 0 && sent >= 64 * 1024) {
            for (int i = 0; i < kEvents; ++i) {
              const auto result = server.server().publish("news", "event-" + std::to_string(i));
              published += result.status == server::PublishStatus::ok;
            }
          }
          if (sent == flood.size()) return true;
          const ssize_t n = ::send(attacker.fd, flood.data() + sent, flood.size() - sent, MSG_NOSIGNAL);
          if (n <= 0) return false;
          sent += static_cast<std::size_t>(n);
        }
      },
      {}, std::chrono::seconds(60), {attacker.fd});
  ASSERT_TRUE(all_sent) << sent << " of " << flood.size() << " bytes sent";
  ASSERT_EQ(published, kEvents);

  // The attacker's request is answered once the server has read every
  // KeyUpdate before it.
  ASSERT_TRUE(pump(
      [&] {
        return !attacker.tls->read_available() || attacker.tls->received().find("\r\n\r\n") != std::string::npos;
      },
      {attacker.fd}, std::chrono::seconds(60)));
  ASSERT_TRUE(attacker.tls->received().starts_with("HTTP/1.1 404")) << attacker.tls->received();

  // What the server wrote to the subscriber before that answer is in the
  // subscriber's socket by now.
  ASSERT_TRUE(subscriber.tls->read_available());
  std::vector<int> in_order(kEvents);
  for (int i = 0; i < kEvents; ++i) in_order[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(events_in(subscriber.tls->received(), kEvents), in_order)
      << "the subscriber's events waited for the attacker's stream";

  // And every event arrives, in order, in any case.
  ASSERT_TRUE(pump(
      [&] {
        return !subscriber.tls->read_available() ||
               events_in(subscriber.tls->received(), kEvents).size() == static_cast<std::size_t>(kEvents);
      },
      {subscriber.fd}));
  EXPECT_EQ(events_in(subscriber.tls->received(), kEvents), in_order);
}

}  // namespace
}  // namespace sluice::test
