// The client over TLS and HTTP/2: SSE, publishing and WebSocket over
// https:// and wss:// (a TLS front made of the transport engine before an
// in-process sluice server), SSE over HTTP/2 by ALPN and by prior
// knowledge (a small HTTP/2 server made of the engines), certificate and
// host checks on by default, and the `sluice` tool's TLS switches.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <memory>
#include <string>

#include "child_process.hpp"
#include "client_test_support.hpp"
#include "h2_test_server.hpp"
#include "sluice/client/publisher.hpp"
#include "sluice/client/sse_client.hpp"
#include "sluice/client/ws_client.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"
#include "tls_front.hpp"

namespace sluice::client::test {
namespace {

using sluice::test::ChildProcess;
using sluice::test::RunningServer;
using sluice::test::TlsFront;
using transport::test::H2ServerOptions;
using transport::test::H2TestServer;

class TlsClient : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new sluice::test::TestCerts();
    ASSERT_TRUE(certs_->ok()) << certs_->error();
    cert_ = new sluice::test::ServerCert(certs_->server("localhost"));
    elsewhere_ = new sluice::test::ServerCert(certs_->server("elsewhere", "DNS:example.com"));
    ASSERT_FALSE(elsewhere_->cert_file.empty()) << certs_->error();
  }
  static void TearDownTestSuite() {
    delete elsewhere_;
    delete cert_;
    delete certs_;
  }

  static transport::TlsContext server_context(bool offer_h2, const sluice::test::ServerCert& cert = *cert_) {
    std::string error;
    transport::TlsContext context =
        transport::make_server_context({cert.cert_file, cert.key_file, ""}, {.offer_h2 = offer_h2}, error);
    EXPECT_TRUE(context) << error;
    return context;
  }
  static ClientOptions trusting() {
    ClientOptions options;
    options.tls.ca_file = certs_->ca_file();
    return options;
  }
  static std::string https(std::uint16_t port, const std::string& path) {
    return "https://127.0.0.1:" + std::to_string(port) + path;
  }

  static sluice::test::TestCerts* certs_;
  static sluice::test::ServerCert* cert_;
  static sluice::test::ServerCert* elsewhere_;
};

sluice::test::TestCerts* TlsClient::certs_ = nullptr;
sluice::test::ServerCert* TlsClient::cert_ = nullptr;
sluice::test::ServerCert* TlsClient::elsewhere_ = nullptr;

bool next_data(SseClient& client, std::string& data) {
  Event event;
  while (client.next(event, 10s) == NextStatus::event) {
    if (event.kind != EventKind::message) continue;
    data = event.data;
    return true;
  }
  return false;
}

TEST_F(TlsClient, SseAndPublishingOverHttpsWithHttp11) {
  RunningServer server;
  TlsFront front(server_context(false), server.port());
  SseClient subscriber(trusting());
  ASSERT_EQ(subscriber.start(https(front.port(), "/sse/news")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return subscriber.state() == ClientState::open; })) << subscriber.error().message;
  Publisher publisher({.tls = {.ca_file = certs_->ca_file()}});
  ASSERT_EQ(publisher.open(https(front.port(), "/pub/news")).kind, ErrorKind::none);
  const PublishResult published = publisher.publish("over tls");
  ASSERT_EQ(published.error.kind, ErrorKind::none) << published.error.message;
  EXPECT_EQ(published.subscribers, 1u);
  std::string data;
  ASSERT_TRUE(next_data(subscriber, data));
  EXPECT_EQ(data, "over tls");
  EXPECT_EQ(subscriber.last_id(), published.id);
  EXPECT_EQ(front.handshakes(), 2);
}

TEST_F(TlsClient, WebSocketOverWss) {
  RunningServer server;
  TlsFront front(server_context(false), server.port());
  WsClient client(trusting());
  ASSERT_EQ(client.subscribe("wss-news").status, SubmitStatus::queued);
  ASSERT_EQ(client.start("wss://127.0.0.1:" + std::to_string(front.port()) + "/ws").kind, ErrorKind::none);
  Event event;
  ASSERT_EQ(client.next(event, 10s), NextStatus::event) << client.error().message;
  EXPECT_EQ(event.kind, EventKind::ack);
  ASSERT_EQ(client.publish("wss-news", "sealed").status, SubmitStatus::queued);
  bool seen = false;
  while (!seen && client.next(event, 10s) == NextStatus::event) seen = event.kind == EventKind::message;
  ASSERT_TRUE(seen);
  EXPECT_EQ(event.data, "sealed");
  EXPECT_EQ(event.topic, "wss-news");
}

TEST_F(TlsClient, SseOverHttp2ByAlpn) {
  H2ServerOptions options;
  options.tls = server_context(true);
  H2TestServer server(options);
  SseClient subscriber(trusting());
  ASSERT_EQ(subscriber.start(https(server.port(), "/sse/h2news")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return server.subscribers("h2news") == 1; })) << subscriber.error().message;
  for (const char* data : {"one", "two", "three"}) EXPECT_EQ(server.publish("h2news", data), 1);
  for (const char* expected : {"one", "two", "three"}) {
    std::string data;
    ASSERT_TRUE(next_data(subscriber, data));
    EXPECT_EQ(data, expected);
  }
  EXPECT_EQ(subscriber.state(), ClientState::open);
}

TEST_F(TlsClient, SseOverH2cByPriorKnowledge) {
  H2TestServer server({});
  ClientOptions options;
  options.http2 = Http2::prior_knowledge;
  SseClient subscriber(options);
  ASSERT_EQ(subscriber.start(http_url(server.port(), "/sse/h2c")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return server.subscribers("h2c") == 1; })) << subscriber.error().message;
  EXPECT_EQ(server.publish("h2c", "plain h2"), 1);
  std::string data;
  ASSERT_TRUE(next_data(subscriber, data));
  EXPECT_EQ(data, "plain h2");
}

// No CA given: the system's CAs, which do not know the test's.
TEST_F(TlsClient, TheServersCertificateIsCheckedByDefault) {
  RunningServer server;
  TlsFront front(server_context(false), server.port());
  SseClient subscriber;
  ASSERT_EQ(subscriber.start(https(front.port(), "/sse/news")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return subscriber.state() == ClientState::failed; }));
  EXPECT_EQ(subscriber.error().kind, ErrorKind::tls);
  EXPECT_TRUE(subscriber.error().fatal);
  EXPECT_NE(subscriber.error().message.find("certificate verify failed"), std::string::npos)
      << subscriber.error().message;

  Publisher publisher;
  ASSERT_EQ(publisher.open(https(front.port(), "/pub/news")).kind, ErrorKind::none);
  EXPECT_EQ(publisher.publish("x").error.kind, ErrorKind::tls);
}

TEST_F(TlsClient, ACertificateForAnotherHostIsRefusedUnlessInsecure) {
  RunningServer server;
  TlsFront front(server_context(false, *elsewhere_), server.port());
  SseClient checked(trusting());
  ASSERT_EQ(checked.start(https(front.port(), "/sse/news")).kind, ErrorKind::none);
  ASSERT_TRUE(wait_until([&] { return checked.state() == ClientState::failed; }));
  EXPECT_EQ(checked.error().kind, ErrorKind::tls);
  EXPECT_NE(checked.error().message.find("IP address mismatch"), std::string::npos) << checked.error().message;

  ClientOptions insecure;
  insecure.tls.insecure = true;
  SseClient unchecked(insecure);
  ASSERT_EQ(unchecked.start(https(front.port(), "/sse/news")).kind, ErrorKind::none);
  EXPECT_TRUE(wait_until([&] { return unchecked.state() == ClientState::open; })) << unchecked.error().message;
}

TEST_F(TlsClient, AMissingCaFileIsAFatalErrorAtStart) {
  ClientOptions options;
  options.tls.ca_file = certs_->dir() + "/absent.pem";
  SseClient subscriber(options);
  const ClientError e = subscriber.start("https://127.0.0.1:1/sse/news");
  EXPECT_EQ(e.kind, ErrorKind::tls);
  EXPECT_TRUE(e.fatal);
  EXPECT_NE(e.message.find("absent.pem"), std::string::npos) << e.message;
  EXPECT_EQ(subscriber.state(), ClientState::stopped);
}

std::string cli() {
  const std::string from_env = sluice::test::env_path("SLUICE_CLI");
  return from_env.empty() ? std::string(SLUICE_CLI_PATH) : from_env;
}

TEST_F(TlsClient, TheCliSubscribesOverHttp2AndPublishesOverHttps) {
  if (::access(cli().c_str(), X_OK) != 0) GTEST_SKIP() << cli() << " is not built";
  H2ServerOptions options;
  options.tls = server_context(true);
  H2TestServer h2(options);
  ChildProcess sub({cli(), "sub", "--cacert", certs_->ca_file(), https(h2.port(), "/sse/cli")});
  ASSERT_TRUE(sub.read_until_contains("sluice: connected", 10s)) << sub.output();
  ASSERT_TRUE(wait_until([&] { return h2.subscribers("cli") == 1; }));
  h2.publish("cli", "from h2");
  EXPECT_TRUE(sub.read_until_contains(" message from h2\n", 10s)) << sub.output();
  sub.signal(SIGINT);
  EXPECT_EQ(sub.wait(10s), 0);

  RunningServer server;
  TlsFront front(server_context(false), server.port());
  ChildProcess pub({"sh", "-c",
                    "printf 'a line\\n' | " + cli() + " pub -v --cacert " + certs_->ca_file() + " " +
                        https(front.port(), "/pub/cli")});
  ASSERT_TRUE(pub.read_to_end(10s));
  EXPECT_EQ(pub.wait(10s), 0) << pub.output();
  EXPECT_NE(pub.output().find(':'), std::string::npos) << pub.output();  // the id

  ChildProcess untrusting({cli(), "sub", https(front.port(), "/sse/cli")});
  ASSERT_TRUE(untrusting.read_to_end(10s));
  EXPECT_EQ(untrusting.wait(10s), 1);
  EXPECT_NE(untrusting.output().find("certificate verify failed"), std::string::npos) << untrusting.output();
}

}  // namespace
}  // namespace sluice::client::test
