// sluiced over TLS, with real peers: curl (--cacert) for SSE and POST, the
// sluice client with verification on, Node's `ws` over wss://, and raw
// sockets for what a hostile or confused client does (a handshake that
// never ends, plain HTTP on the TLS port, a flood of open handshakes).
// Certificates are made by the openssl command in a temporary directory
// for each test (TestCerts); none is committed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"
#include "test_certs.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::filesystem::path kTlsPeers = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers";

std::vector<std::string> sluiced_argv(const ServerCert& cert, const std::vector<std::string>& settings) {
  std::vector<std::string> args = {env_path("SLUICED"), "--listen", "127.0.0.1:0", "--threads", "1",
                                   "--set", "tls.cert_file=" + cert.cert_file, "--set",
                                   "tls.key_file=" + cert.key_file};
  for (const std::string& s : settings) args.insert(args.end(), {"--set", s});
  return args;
}

// sluiced serving TLS with `cert`.
class TlsSluiced {
 public:
  TlsSluiced(const ServerCert& cert, const std::vector<std::string>& settings = {})
      : process_(sluiced_argv(cert, settings)) {
    if (!process_.read_until_contains("\n", 10s)) return;
    const std::string& banner = process_.output();
    const std::size_t end = banner.find('\n');
    const std::size_t colon = banner.rfind(':', end);
    if (banner.find("listening on") < end) port_ = banner.substr(colon + 1, end - colon - 1);
  }

  [[nodiscard]] const std::string& port() const { return port_; }
  [[nodiscard]] std::string url(const std::string& path) const { return "https://127.0.0.1:" + port_ + path; }
  ChildProcess& process() { return process_; }
  int stop() {
    process_.signal(SIGTERM);
    return process_.wait(10s);
  }

 private:
  ChildProcess process_;
  std::string port_;
};

// Runs a short command to its end; its exit code and output.
struct Ran {
  int code;
  std::string output;
};
Ran run(const std::vector<std::string>& argv) {
  ChildProcess child(argv);
  child.read_to_end(30s);
  const int code = child.wait(5s);
  return {code, child.output()};
}

std::vector<std::string> curl(const std::string& ca, const std::vector<std::string>& more) {
  std::vector<std::string> args = {"curl", "-sS", "--max-time", "20", "--cacert", ca};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

int connect_tcp(const std::string& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(port)));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads until the server ends the connection (EOF or reset); what it sent,
// or nullopt when it was still open after `limit`.
std::optional<std::string> read_until_closed(int fd, std::chrono::milliseconds limit) {
  std::string got;
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (::poll(&p, 1, static_cast<int>(std::max<long>(left, 1))) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return got;
    got.append(chunk, static_cast<std::size_t>(n));
  }
  return std::nullopt;
}

class TlsServing : public ServerCertTest {
 protected:
  TlsServing() : ServerCertTest("first") {}
};

TEST_F(TlsServing, CurlSubscribesAndPublishesOverHttps) {
  TlsSluiced sluiced(cert_);
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  // Its first line says the listener speaks TLS.
  EXPECT_NE(sluiced.process().output().find(", TLS) listening on 127.0.0.1:"), std::string::npos)
      << sluiced.process().output();
  ChildProcess sub(curl(certs_.ca_file(), {"-N", sluiced.url("/sse/news")}));
  ASSERT_TRUE(sub.read_until_contains("retry: ", 10s)) << sub.output();
  const Ran pub = run(curl(certs_.ca_file(), {"-d", "hello over tls", sluiced.url("/pub/news")}));
  EXPECT_EQ(pub.code, 0) << pub.output;
  EXPECT_NE(pub.output.find("\"subscribers\":1"), std::string::npos) << pub.output;
  EXPECT_TRUE(sub.read_until_contains("data: hello over tls\n\n", 10s)) << sub.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(TlsServing, ClientsThatDoNotTrustTheCertificateAreRefused) {
  TlsSluiced sluiced(cert_);
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  const std::string other_ca = certs_.other_ca("stranger");
  const Ran curl_run = run(curl(other_ca, {sluiced.url("/healthz")}));
  EXPECT_EQ(curl_run.code, 60) << curl_run.output;  // CURLE_PEER_FAILED_VERIFICATION

  const Ran cli_run = run({SLUICE_CLI_PATH, "sub", "--cacert", other_ca, sluiced.url("/sse/news")});
  EXPECT_EQ(cli_run.code, 1) << cli_run.output;
  EXPECT_NE(cli_run.output.find("certificate verify failed"), std::string::npos) << cli_run.output;
  // The server goes on serving clients that do trust it.
  const Ran trusted = run(curl(certs_.ca_file(), {sluiced.url("/healthz")}));
  EXPECT_EQ(trusted.output, "ok\n");
}

TEST_F(TlsServing, TheSluiceClientSubscribesAndPublishesWithVerificationOn) {
  TlsSluiced sluiced(cert_);
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  ChildProcess sub({SLUICE_CLI_PATH, "sub", "--cacert", certs_.ca_file(), sluiced.url("/sse/cli")});
  ASSERT_TRUE(sub.read_until_contains("sluice: connected", 10s)) << sub.output();
  // Connected is said once the stream's head arrived: the subscriber is in.
  const Ran pub = run({"sh", "-c",
                       "printf 'from the cli\\n' | " + std::string(SLUICE_CLI_PATH) + " pub --cacert " +
                           certs_.ca_file() + " " + sluiced.url("/pub/cli")});
  EXPECT_EQ(pub.code, 0) << pub.output;
  EXPECT_TRUE(sub.read_until_contains("from the cli", 10s)) << sub.output();
  sub.signal(SIGINT);
  EXPECT_EQ(sub.wait(10s), 0);
}

TEST_F(TlsServing, NodeWsGetsEventsOverWss) {
  ASSERT_TRUE(std::filesystem::exists(kTlsPeers / "node_modules" / "ws"))
      << "the peers' npm packages are missing: run make peers";
  TlsSluiced sluiced(cert_);
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  const Ran peer = run({"node", (kTlsPeers / "wss_events.mjs").string(), sluiced.port(), certs_.ca_file()});
  EXPECT_EQ(peer.code, 0) << peer.output;
  EXPECT_NE(peer.output.find("wss_events: 500 events in order over wss, close code 1000"), std::string::npos)
      << peer.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(TlsServing, AHandshakeThatNeverCompletesIsClosedAtTheTimeout) {
  TlsSluiced sluiced(cert_, {"tls.handshake_timeout_ms=300"});
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  const int fd = connect_tcp(sluiced.port());
  ASSERT_GE(fd, 0);
  const auto opened = Clock::now();
  const auto got = read_until_closed(fd, 10s);
  const auto waited = Clock::now() - opened;
  ::close(fd);
  ASSERT_TRUE(got.has_value()) << "still open after 10 s";
  EXPECT_TRUE(got->empty()) << "the server sent " << got->size() << " bytes to a client that said nothing";
  EXPECT_GE(waited, 250ms) << "closed before the timeout";
}

// http:// to the TLS port, a frequent slip: told in plain HTTP which
// scheme to use (where a bare close leaves the client "reset by peer"),
// and served nothing.
TEST_F(TlsServing, PlainHttpOnTheTlsPortIsToldToUseHttpsAndOthersAreServed) {
  TlsSluiced sluiced(cert_);
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  const int fd = connect_tcp(sluiced.port());
  ASSERT_GE(fd, 0);
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  const auto got = read_until_closed(fd, 10s);
  ::close(fd);
  ASSERT_TRUE(got.has_value()) << "still open after 10 s";
  EXPECT_EQ(got->rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << *got;
  EXPECT_TRUE(got->ends_with("\r\n\r\nthis port speaks TLS: use https:// (wss://) instead\n")) << *got;
  const Ran curl_plain = run({"curl", "-sS", "--max-time", "10", "http://127.0.0.1:" + sluiced.port() + "/healthz"});
  EXPECT_EQ(curl_plain.output, "this port speaks TLS: use https:// (wss://) instead\n");
  const Ran trusted = run(curl(certs_.ca_file(), {sluiced.url("/healthz")}));
  EXPECT_EQ(trusted.output, "ok\n");
  EXPECT_EQ(sluiced.stop(), 0);
}

// Open handshakes are connections: max_connections bounds them, and the
// client past the limit is closed at once (it could not read a plain 503).
TEST_F(TlsServing, AHandshakeFloodIsBoundedByTheConnectionLimit) {
  TlsSluiced sluiced(cert_, {"max_connections=3", "tls.handshake_timeout_ms=60000"});
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(connect_tcp(sluiced.port()));
  for (const int fd : idle) ASSERT_GE(fd, 0);
  // Each of the three is admitted in order; the fourth finds the slots taken.
  const int past = connect_tcp(sluiced.port());
  ASSERT_GE(past, 0);
  const auto got = read_until_closed(past, 10s);
  ::close(past);
  ASSERT_TRUE(got.has_value()) << "the connection past the limit was kept open";
  EXPECT_TRUE(got->empty()) << *got;
  const Ran refused = run(curl(certs_.ca_file(), {sluiced.url("/healthz")}));
  EXPECT_NE(refused.code, 0) << refused.output;
  for (const int fd : idle) ::close(fd);
  // The slots come back as the server sees the three go.
  Ran served{1, {}};
  for (const auto deadline = Clock::now() + 10s; served.output != "ok\n" && Clock::now() < deadline;) {
    served = run(curl(certs_.ca_file(), {sluiced.url("/healthz")}));
  }
  EXPECT_EQ(served.output, "ok\n");
  EXPECT_EQ(sluiced.stop(), 0);
}

void copy_cert(const ServerCert& from, const std::string& cert_path, const std::string& key_path) {
  // Written beside and renamed over: a reload never reads half a file.
  std::filesystem::copy_file(from.cert_file, cert_path + ".new", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(from.key_file, key_path + ".new", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::rename(cert_path + ".new", cert_path);
  std::filesystem::rename(key_path + ".new", key_path);
}

TEST_F(TlsServing, SighupServesANewCertificateToNewConnectionsAndKeepsOpenStreams) {
  const ServerCert second = certs_.server("second");
  ASSERT_FALSE(second.cert_file.empty()) << certs_.error();
  ServerCert live{certs_.dir() + "/live.pem", certs_.dir() + "/live.key", "", ""};
  copy_cert(cert_, live.cert_file, live.key_file);
  TlsSluiced sluiced(live);
  ASSERT_FALSE(sluiced.port().empty()) << sluiced.process().output();
  const Ran before = run(curl(certs_.ca_file(), {"-v", sluiced.url("/healthz")}));
  EXPECT_NE(before.output.find("CN=first"), std::string::npos) << before.output;
  ChildProcess old_stream(curl(certs_.ca_file(), {"-N", sluiced.url("/sse/kept")}));
  ASSERT_TRUE(old_stream.read_until_contains("retry: ", 10s)) << old_stream.output();

  copy_cert(second, live.cert_file, live.key_file);
  sluiced.process().signal(SIGHUP);
  ASSERT_TRUE(sluiced.process().read_until_contains("sluiced: reloaded\n", 10s)) << sluiced.process().output();
  const Ran after = run(curl(certs_.ca_file(), {"-v", sluiced.url("/healthz")}));
  EXPECT_NE(after.output.find("CN=second"), std::string::npos) << after.output;

  // The stream opened under the first certificate still gets events.
  const Ran pub = run(curl(certs_.ca_file(), {"-d", "after the reload", sluiced.url("/pub/kept")}));
  EXPECT_NE(pub.output.find("\"subscribers\":1"), std::string::npos) << pub.output;
  EXPECT_TRUE(old_stream.read_until_contains("data: after the reload\n", 10s)) << old_stream.output();

  // A key that does not load is reported and the current certificate stays.
  { std::ofstream(live.key_file, std::ios::trunc) << "not a key\n"; }
  sluiced.process().signal(SIGHUP);
  ASSERT_TRUE(sluiced.process().read_until_contains("reload failed, kept the old value: tls.", 10s))
      << sluiced.process().output();
  const Ran still = run(curl(certs_.ca_file(), {"-v", sluiced.url("/healthz")}));
  EXPECT_NE(still.output.find("CN=second"), std::string::npos) << still.output;
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST_F(TlsServing, ACertificateThatCannotBeLoadedStopsSluicedWithTheKeyNamed) {
  const ServerCert missing{certs_.dir() + "/absent.pem", cert_.key_file, "", ""};
  ChildProcess sluiced(sluiced_argv(missing, {}));
  ASSERT_TRUE(sluiced.read_to_end(10s));
  EXPECT_EQ(sluiced.wait(5s), 2);
  EXPECT_NE(sluiced.output().find("tls.cert_file: cannot open " + missing.cert_file), std::string::npos)
      << sluiced.output();
}

}  // namespace
}  // namespace sluice::test
