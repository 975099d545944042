// The HTTP/2 engine against real clients: curl (by prior knowledge, and
// over TLS by ALPN) and Node's built-in http2 module, talking to
// H2TestServer on a loopback port.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "child_process.hpp"
#include "h2_test_server.hpp"
#include "test_certs.hpp"

namespace sluice::transport::test {
namespace {

using namespace std::chrono_literals;
using sluice::test::ChildProcess;

const std::filesystem::path kPeers = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers";

std::string base(const H2TestServer& server, bool tls) {
  return std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(server.port());
}

// A curl command line; `tls_ca` empty means h2c by prior knowledge.
std::vector<std::string> curl(const std::string& tls_ca, std::vector<std::string> args) {
  std::vector<std::string> argv = {"curl", "-sS", "-v", "--max-time", "30"};
  if (tls_ca.empty()) {
    argv.push_back("--http2-prior-knowledge");
  } else {
    argv.insert(argv.end(), {"--http2", "--cacert", tls_ca});
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

void subscribe_publish_and_see(H2TestServer& server, const std::string& tls_ca) {
  const bool tls = !tls_ca.empty();
  ChildProcess subscriber(curl(tls_ca, {"-N", base(server, tls) + "/sse/news"}));
  ASSERT_TRUE(server.wait_until([&] { return server.subscribers("news") == 1; }, 10s)) << [&] {
    subscriber.read_to_end(1s);
    return subscriber.output();
  }();
  ChildProcess publisher(curl(tls_ca, {"-d", "hello over h2", base(server, tls) + "/pub/news"}));
  ASSERT_TRUE(publisher.read_to_end(30s));
  EXPECT_EQ(publisher.wait(10s), 0) << publisher.output();
  EXPECT_NE(publisher.output().find("{\"subscribers\":1}"), std::string::npos) << publisher.output();
  EXPECT_NE(publisher.output().find("< HTTP/2 200"), std::string::npos) << publisher.output();
  EXPECT_TRUE(subscriber.read_until_contains("data: hello over h2\n\n", 10s)) << subscriber.output();
  EXPECT_NE(subscriber.output().find("< HTTP/2 200"), std::string::npos) << subscriber.output();
  EXPECT_NE(subscriber.output().find("content-type: text/event-stream"), std::string::npos);
  if (tls) {
    EXPECT_NE(subscriber.output().find("ALPN: server accepted h2"), std::string::npos) << subscriber.output();
  }
}

TEST(H2Peers, CurlByPriorKnowledge) {
  H2TestServer server({});
  subscribe_publish_and_see(server, "");
}

TEST(H2Peers, CurlOverTlsByAlpn) {
  sluice::test::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const sluice::test::ServerCert cert = certs.server("localhost");
  std::string error;
  H2ServerOptions options;
  options.tls = make_server_context({cert.cert_file, cert.key_file, ""}, {}, error);
  ASSERT_TRUE(options.tls) << error;
  H2TestServer server(options);
  subscribe_publish_and_see(server, certs.ca_file());
}

TEST(H2Peers, CurlSeesItsTooLargeBodyRefusedWith413) {
  H2ServerOptions options;
  options.limits.max_body = 64;
  H2TestServer server(options);
  ChildProcess publisher(curl("", {"-o", "/dev/null", "-w", "status=%{http_code}\n", "-d", std::string(1000, 'x'),
                                   base(server, false) + "/pub/news"}));
  ASSERT_TRUE(publisher.read_to_end(30s));
  EXPECT_NE(publisher.output().find("status=413"), std::string::npos) << publisher.output();
}

void node_streams(H2TestServer& server, const std::string& url, const std::string& ca) {
  constexpr int kStreams = 20;
  std::vector<std::string> argv = {"node", (kPeers / "h2_streams.mjs").string(), url, std::to_string(kStreams)};
  if (!ca.empty()) argv.push_back(ca);
  ChildProcess node(argv);
  ASSERT_TRUE(node.read_until_contains("ready\n", 30s)) << node.output();
  int delivered = 0;
  for (int t = 0; t < 4; ++t) delivered += server.publish("h2peer" + std::to_string(t), "go");
  EXPECT_EQ(delivered, kStreams);
  ASSERT_TRUE(node.read_to_end(30s));
  EXPECT_EQ(node.wait(10s), 0) << node.output();
  EXPECT_NE(node.output().find("20 streams on one session got the event, tunnel echoed"), std::string::npos)
      << node.output();
}

TEST(H2Peers, NodeHttp2ManyStreamsAndATunnelByPriorKnowledge) {
  H2TestServer server({});
  node_streams(server, base(server, false), "");
  EXPECT_EQ(server.sessions_accepted(), 1u);
}

TEST(H2Peers, NodeHttp2ManyStreamsAndATunnelOverTls) {
  sluice::test::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const sluice::test::ServerCert cert = certs.server("localhost");
  std::string error;
  H2ServerOptions options;
  options.tls = make_server_context({cert.cert_file, cert.key_file, ""}, {}, error);
  ASSERT_TRUE(options.tls) << error;
  H2TestServer server(options);
  node_streams(server, base(server, true), certs.ca_file());
}

}  // namespace
}  // namespace sluice::transport::test
