// The `sluice` tool, run as a child process (the one this build made, or
// SLUICE_CLI) against an in-process server.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "auth/jwt_mint.hpp"
#include "child_process.hpp"
#include "client_test_support.hpp"
#include "io/socket.hpp"
#include "sluiced_process.hpp"
#include "sluice/client/publisher.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::client::test {
namespace {

using sluice::test::ChildProcess;
using sluice::test::RunningServer;

std::string cli() {
  const std::string from_env = sluice::test::env_path("SLUICE_CLI");
  return from_env.empty() ? std::string(SLUICE_CLI_PATH) : from_env;
}

// Runs `command` through sh, for a pipe into `sluice pub`.
std::vector<std::string> shell(const std::string& command) { return {"sh", "-c", command}; }

void publish(std::uint16_t port, std::string_view target, std::string_view data) {
  Publisher publisher;
  ASSERT_EQ(publisher.open(http_url(port, target)).kind, ErrorKind::none);
  ASSERT_EQ(publisher.publish(data).error.kind, ErrorKind::none);
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(cli().c_str(), X_OK) != 0) GTEST_SKIP() << cli() << " is not built";
  }
};

TEST_F(Cli, SubPrintsOneLinePerEventAndEndsCleanlyOnCtrlC) {
  RunningServer server;
  ChildProcess sub({cli(), "sub", http_url(server.port(), "/sse/news")});
  ASSERT_TRUE(sub.read_until_contains("sluice: connected", 10s)) << sub.output();
  publish(server.port(), "/pub/news", "hello world");
  publish(server.port(), "/pub/news?event=multi", "a\nb\\c");
  ASSERT_TRUE(sub.read_until_contains("a\\nb\\\\c\n", 10s)) << sub.output();
  // An event name may hold ESC: printed as text, not sent to the terminal.
  publish(server.port(), "/pub/news?event=e%1B%5B2J", "x");
  ASSERT_TRUE(sub.read_until_contains(" e\\x1b[2J x\n", 10s)) << sub.output();
  // U+009B, CSI among the C1 controls, which some terminals act on.
  publish(server.port(), "/pub/news", "c1\xC2\x9B" "2J \xC3\xA9");
  ASSERT_TRUE(sub.read_until_contains(" message c1\\xc2\\x9b2J \xC3\xA9\n", 10s)) << sub.output();
  EXPECT_NE(sub.output().find(" message hello world\n"), std::string::npos) << sub.output();
  EXPECT_NE(sub.output().find(" multi a\\nb\\\\c\n"), std::string::npos) << sub.output();
  sub.signal(SIGINT);
  EXPECT_EQ(sub.wait(10s), 0);
}

// What a hostile server sends reaches no terminal as a control: a byte
// that is no part of UTF-8 (0x9B alone is CSI to an 8-bit terminal) is
// escaped in plain lines, UTF-8 text is kept; --json writes everything past
// ASCII as \uXXXX; pub -v escapes the id the server gave.
TEST_F(Cli, WhatAServerSendsReachesNoTerminalAsAControl) {
  FakeServer fake;
  ChildProcess plain({cli(), "sub", http_url(fake.port(), "/sse/t")});
  ChildProcess json({cli(), "sub", "--json", http_url(fake.port(), "/sse/t")});
  for (int i = 0; i < 2; ++i) {
    auto peer = fake.accept();
    ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
    peer->send(sse_head(10) + "id: i\x9b" "31m\nevent: e\xC2\x9D\ndata: d\xC3\xA9\xE2\x80\xAE" "x\xff\xE2\x82\n\n");
    peer->close();
  }
  EXPECT_TRUE(plain.read_until_contains("i\\x9b31m e\\xc2\\x9d d\xC3\xA9\\u202ex\\xff\\xe2\\x82\n", 10s))
      << plain.output();
  EXPECT_TRUE(json.read_until_contains(R"("event":"e\u009d")", 10s)) << json.output();
  EXPECT_EQ(json.output().find('\xC2'), std::string::npos) << json.output();
  for (ChildProcess* sub : {&plain, &json}) {
    sub->signal(SIGINT);
    EXPECT_EQ(sub->wait(10s), 0);
  }

  const std::string body = "{\"id\":\"\\u001b]0;x\\u0007\\u009b2J\",\"subscribers\":0}";
  FakeServer publish_fake;  // the subscribers' reconnections may wait on the first
  std::thread server([&] {
    auto peer = publish_fake.accept();
    if (!peer || !peer->read_until("\r\n\r\n")) return;
    peer->send("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
    peer->read_until_closed();
  });
  ChildProcess pub(shell("echo x | " + cli() + " pub -v " + http_url(publish_fake.port(), "/pub/t")));
  EXPECT_EQ(pub.wait(10s), 0);
  ASSERT_TRUE(pub.read_to_end(10s));
  server.join();
  EXPECT_EQ(pub.output(), "\\x1b]0;x\\x07\\xc2\\x9b2J\n");
}

TEST_F(Cli, SubJsonLinesAndLastId) {
  RunningServer server;
  publish(server.port(), "/pub/j", "one");
  publish(server.port(), "/pub/j", "two");
  Publisher probe;
  ASSERT_EQ(probe.open(http_url(server.port(), "/pub/j")).kind, ErrorKind::none);
  const std::string third = probe.publish("three").id;
  const std::string first = third.substr(0, third.rfind(':') + 1) + "1";
  if (third.find(':') == std::string::npos) GTEST_SKIP() << "the server has no replay yet";
  ChildProcess sub({cli(), "sub", "--json", "--last-id", first, http_url(server.port(), "/sse/j")});
  ASSERT_TRUE(sub.read_until_contains("\"three\"", 10s)) << sub.output();
  const std::string& out = sub.output();
  const std::string line = out.substr(out.find('{'), out.find('\n', out.find('{')) - out.find('{'));
  const nlohmann::json event = nlohmann::json::parse(line);
  EXPECT_EQ(event["kind"], "message");
  EXPECT_EQ(event["topic"], "j");
  EXPECT_EQ(event["data"], "two");
  EXPECT_EQ(seq_of(event["id"].get<std::string>()), 2u);
  sub.signal(SIGTERM);
  EXPECT_EQ(sub.wait(10s), 0);
}

TEST_F(Cli, SubOverWebSocket) {
  RunningServer server;
  if (sluice::test::http_request(server.port(), "GET", "/ws").status == 404) GTEST_SKIP() << "no /ws yet";
  ChildProcess sub({cli(), "sub", ws_url(server.port(), "/ws/w")});
  ASSERT_TRUE(sub.read_until_contains("sluice: connected", 10s)) << sub.output();
  // The subscription is sent right after the handshake: publish until it is in place.
  ASSERT_TRUE(wait_until([&] {
    Publisher p;
    return p.open(http_url(server.port(), "/pub/w")).kind == ErrorKind::none && p.publish("ping").subscribers > 0;
  }));
  ASSERT_TRUE(sub.read_until_contains(" message ping\n", 10s)) << sub.output();
  sub.signal(SIGINT);
  EXPECT_EQ(sub.wait(10s), 0);
}

// Several topics on one WebSocket: each line begins with its event's topic,
// since ids count within a topic and two events may share one.
TEST_F(Cli, SubOfSeveralTopicsPrintsEachEventsTopic) {
  RunningServer server;
  ChildProcess sub({cli(), "sub", ws_url(server.port(), "/ws?topic=ta&topic=tb")});
  ASSERT_TRUE(sub.read_until_contains("sluice: connected", 10s)) << sub.output();
  for (const std::string topic : {"ta", "tb"}) {
    ASSERT_TRUE(wait_until([&] {
      Publisher p;
      return p.open(http_url(server.port(), "/pub/" + topic)).kind == ErrorKind::none &&
             p.publish("to-" + topic).subscribers > 0;
    }));
    ASSERT_TRUE(sub.read_until_contains(" message to-" + topic + "\n", 10s)) << sub.output();
  }
  sub.signal(SIGINT);
  EXPECT_EQ(sub.wait(10s), 0);
  const std::string& out = sub.output();
  EXPECT_NE(out.find("\nta "), std::string::npos) << out;
  EXPECT_NE(out.find("\ntb "), std::string::npos) << out;
}

// A publisher imitates the server's notices every way it can: an SSE
// event named sluice-dropped or sluice-reset, data that opens like a
// /ws/{topic} notice, a WebSocket publisher sending one. Each is refused,
// and `sluice sub` on both transports reports only the real event after.
TEST_F(Cli, SubIsNotFooledByForgedNotices) {
  RunningServer server;
  const std::uint16_t port = server.port();
  ChildProcess sse_sub({cli(), "sub", http_url(port, "/sse/forged")});
  ChildProcess ws_sub({cli(), "sub", ws_url(port, "/ws/forged")});
  ASSERT_TRUE(sse_sub.read_until_contains("sluice: connected", 10s)) << sse_sub.output();
  ASSERT_TRUE(ws_sub.read_until_contains("sluice: connected", 10s)) << ws_sub.output();
  ASSERT_TRUE(wait_until([&] {
    Publisher p;
    return p.open(http_url(port, "/pub/forged")).kind == ErrorKind::none && p.publish("ready").subscribers == 2;
  }));

  const std::string forged =
      R"({"topic":"forged","dropped":999999,"first_id":"x:1","last_id":"x:999999","policy":"fifo"})";
  for (const char* event : {"sluice-dropped", "sluice-reset"}) {
    const auto reply = sluice::test::http_request(port, "POST", std::string("/pub/forged?event=") + event, forged);
    EXPECT_EQ(reply.status, 400) << event;
    EXPECT_NE(reply.body.find("sluice-"), std::string::npos) << reply.body;
  }
  const std::string envelope = R"({"sluice":"dropped","topic":"forged","dropped":999999})";
  EXPECT_EQ(sluice::test::http_request(port, "POST", "/pub/forged", envelope).status, 400);
  sluice::test::ws::WsTestClient ws_forger(port);
  ASSERT_TRUE(ws_forger.open("/ws/forged"));
  ws_forger.send({.opcode = sluice::test::ws::kText,
                  .payload = R"({"sluice":"reset","topic":"forged","reason":"too-old"})"});
  EXPECT_EQ(ws_forger.read_close(), 1008);

  publish(port, "/pub/forged", "after");
  ASSERT_TRUE(sse_sub.read_until_contains(" message after\n", 10s)) << sse_sub.output();
  ASSERT_TRUE(ws_sub.read_until_contains(" message after\n", 10s)) << ws_sub.output();
  for (ChildProcess* sub : {&sse_sub, &ws_sub}) {
    EXPECT_EQ(sub->output().find("dropped"), std::string::npos) << sub->output();
    EXPECT_EQ(sub->output().find("reset"), std::string::npos) << sub->output();
    EXPECT_EQ(sub->output().find("sluice\""), std::string::npos) << sub->output();
    sub->signal(SIGINT);
    EXPECT_EQ(sub->wait(10s), 0);
  }
}

TEST_F(Cli, AWordThatNamesNoCommandIsSaidToBeOne) {
  ChildProcess bogus({cli(), "bogus"});
  EXPECT_EQ(bogus.wait(10s), 2);
  ASSERT_TRUE(bogus.read_to_end(10s));
  EXPECT_EQ(bogus.output(), "sluice: no command 'bogus': use sub, pub or token (sluice --help)\n");
}

TEST_F(Cli, SubRefusesWhatItCannotUseWithOneLine) {
  ChildProcess scheme({cli(), "sub", "ftp://127.0.0.1/sse/a"});
  EXPECT_EQ(scheme.wait(10s), 2);
  ASSERT_TRUE(scheme.read_to_end(10s));
  EXPECT_NE(scheme.output().find("unsupported scheme 'ftp'"), std::string::npos) << scheme.output();

  // A CA file that cannot be read is a usage error naming the option.
  const std::string no_ca = ::testing::TempDir() + "sluice_cli_no_ca_" + std::to_string(::getpid()) + ".pem";
  ChildProcess ca({cli(), "sub", "--cacert", no_ca, "https://127.0.0.1:1/sse/a"});
  EXPECT_EQ(ca.wait(10s), 2);
  ASSERT_TRUE(ca.read_to_end(10s));
  EXPECT_EQ(ca.output(), "sluice: --cacert: cannot open " + no_ca + ": No such file or directory\n");

  RunningServer server;
  ChildProcess missing({cli(), "sub", http_url(server.port(), "/nowhere")});
  EXPECT_EQ(missing.wait(10s), 1);
  ASSERT_TRUE(missing.read_to_end(10s));
  EXPECT_NE(missing.output().find("404"), std::string::npos) << missing.output();

  ChildProcess refused({cli(), "sub", "--max-attempts", "1", http_url(closed_port(), "/sse/a")});
  EXPECT_EQ(refused.wait(10s), 1);
  ASSERT_TRUE(refused.read_to_end(10s));
  EXPECT_NE(refused.output().find("refused"), std::string::npos) << refused.output();
}

// --policy reaches an SSE stream as its ?policy=: a server that does not
// offer it says so, and the CLI prints the refusal.
TEST_F(Cli, SubAsksAnSseStreamForItsPolicy) {
  server::Config config;
  config.policy.allowed = 1u << static_cast<unsigned>(Policy::fifo);
  RunningServer server(config);
  ChildProcess sub({cli(), "sub", "--policy", "latest", "--max-attempts", "1", http_url(server.port(), "/sse/p")});
  EXPECT_EQ(sub.wait(10s), 1);
  ASSERT_TRUE(sub.read_to_end(10s));
  EXPECT_NE(sub.output().find("policy 'latest' is not offered here"), std::string::npos) << sub.output();
  ChildProcess unknown({cli(), "sub", "--policy", "bogus", http_url(server.port(), "/sse/p")});
  EXPECT_NE(unknown.wait(10s), 0);
}

TEST_F(Cli, PubPublishesEachLineAndPrintsIds) {
  RunningServer server;
  ChildProcess pub(shell("printf 'first\\nsecond\\r\\nthird' | " + cli() + " pub -v " +
                         http_url(server.port(), "/pub/lines")));
  EXPECT_EQ(pub.wait(10s), 0);
  ASSERT_TRUE(pub.read_to_end(10s));
  const std::string& out = pub.output();
  ASSERT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
  EXPECT_EQ(seq_of(out.substr(out.rfind('\n', out.size() - 2) + 1)), 3u) << out;
}

TEST_F(Cli, PubFailsWithOneLineAndANonZeroStatus) {
  RunningServer server;
  ChildProcess bad(shell("echo x | " + cli() + " pub " + http_url(server.port(), "/pub/bad%20topic")));
  EXPECT_EQ(bad.wait(10s), 1);
  ASSERT_TRUE(bad.read_to_end(10s));
  EXPECT_EQ(std::count(bad.output().begin(), bad.output().end(), '\n'), 1) << bad.output();
  EXPECT_NE(bad.output().find("sluice: line 1:"), std::string::npos) << bad.output();
  EXPECT_NE(bad.output().find("400"), std::string::npos) << bad.output();

  ChildProcess refused(shell("echo x | " + cli() + " pub " + http_url(closed_port(), "/pub/t")));
  EXPECT_EQ(refused.wait(10s), 1);

  // Told what a publisher can use, not every scheme a subscriber can; a
  // long scheme is cut with a mark, and a "://" in a query is no scheme.
  ChildProcess long_scheme(shell("echo x | " + cli() + " pub " + std::string(20, 'h') + "://127.0.0.1/pub/t"));
  EXPECT_NE(long_scheme.wait(10s), 0);
  ASSERT_TRUE(long_scheme.read_to_end(10s));
  EXPECT_NE(long_scheme.output().find("not " + std::string(16, 'h') + "...://"), std::string::npos)
      << long_scheme.output();
  ChildProcess no_scheme(shell("echo x | " + cli() + " pub '127.0.0.1:1/pub/t?x=http://y'"));
  EXPECT_NE(no_scheme.wait(10s), 0);
  ASSERT_TRUE(no_scheme.read_to_end(10s));
  EXPECT_NE(no_scheme.output().find("not an absolute URL"), std::string::npos) << no_scheme.output();
  for (const char* url : {"ftp://127.0.0.1/pub/t", "ws://127.0.0.1/pub/t"}) {
    ChildProcess scheme(shell("echo x | " + cli() + " pub " + url));
    EXPECT_NE(scheme.wait(10s), 0) << url;
    ASSERT_TRUE(scheme.read_to_end(10s));
    EXPECT_NE(scheme.output().find("http:// or https://"), std::string::npos) << scheme.output();
    EXPECT_EQ(scheme.output().find("ws://,"), std::string::npos) << scheme.output();
  }

  ChildProcess long_line(shell("head -c 100 /dev/zero | tr '\\0' a | " + cli() + " pub --max-line 10 " +
                               http_url(server.port(), "/pub/t")));
  EXPECT_EQ(long_line.wait(10s), 1);
  ASSERT_TRUE(long_line.read_to_end(10s));
  EXPECT_NE(long_line.output().find("longer than 10 bytes"), std::string::npos) << long_line.output();
}

// Ctrl-C gives up a publish waiting for its answer at once, not after
// --timeout: the server here takes the request and never answers.
TEST_F(Cli, PubGivesUpAPublishWaitingForItsAnswerOnCtrlC) {
  const int listener = io::listen_tcp({"127.0.0.1", 0}, {});
  ASSERT_GE(listener, 0);
  // exec: the signal goes to sluice itself, not to a shell waiting for it.
  ChildProcess pub(shell("exec " + cli() + " pub --timeout 600000 " +
                         http_url(io::local_port(listener), "/pub/t") + " <<'E'\nx\nE\n"));
  pollfd pending{listener, POLLIN, 0};
  ASSERT_EQ(::poll(&pending, 1, 10000), 1) << pub.output();
  const int server = ::accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);
  // Once the whole request is in, the publish waits for the answer.
  std::string request;
  while (request.find("\r\n\r\nx") == std::string::npos) {
    pollfd readable{server, POLLIN, 0};
    ASSERT_EQ(::poll(&readable, 1, 10000), 1) << request;
    char bytes[512];
    const ssize_t n = ::recv(server, bytes, sizeof bytes, 0);
    ASSERT_GT(n, 0) << request;
    request.append(bytes, static_cast<std::size_t>(n));
  }
  pub.signal(SIGINT);
  EXPECT_EQ(pub.wait(60s), 130) << pub.output();
  ::close(server);
  ::close(listener);
}

// A 503 is waited out as its Retry-After says, a few times, and each wait
// is said on standard error with the server's reason: a publisher held up
// is not mistaken for a hung one.
TEST_F(Cli, PubSaysEach503ItWaitsOut) {
  FakeServer fake;
  ChildProcess pub(shell("echo x | " + cli() + " pub " + http_url(fake.port(), "/pub/t")));
  for (int i = 0; i < 6; ++i) {
    auto peer = fake.accept();
    ASSERT_TRUE(peer && peer->read_until("\r\n\r\n")) << i;
    const std::string body = "503 Service Unavailable: topic limit reached (topics.max)\n";
    peer->send("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nConnection: close\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\n\r\n" + body);
    peer->close();
  }
  EXPECT_EQ(pub.wait(10s), 1);
  ASSERT_TRUE(pub.read_to_end(10s));
  const std::string& out = pub.output();
  EXPECT_NE(out.find("topic limit reached (topics.max); trying again in 100 ms (1 of 5)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("(5 of 5)\n"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 6) << out;
}

// A Retry-After of an hour is waited out for 30 s at most, as sub's
// reconnection is capped, and Ctrl-C ends the wait.
TEST_F(Cli, PubWaitsOutARetryAfterOf30SecondsAtMost) {
  FakeServer fake;
  ChildProcess pub(shell("exec " + cli() + " pub " + http_url(fake.port(), "/pub/t") + " <<'END'\nx\nEND\n"));
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  const std::string body = "busy\n";
  peer->send("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 3600\r\nConnection: close\r\nContent-Length: " +
             std::to_string(body.size()) + "\r\n\r\n" + body);
  peer->close();
  ASSERT_TRUE(pub.read_until_contains("trying again in 30000 ms (1 of 5)\n", 10s)) << pub.output();
  pub.signal(SIGINT);
  EXPECT_EQ(pub.wait(10s), 130);
}

// URLs with a bracketed IPv6 host, against sluiced listening on [::1]:
// SSE and WebSocket subscribers and a publisher, each connecting there.
TEST_F(Cli, SubAndPubReachAServerOnIpv6LoopbackByBracketedUrls) {
  sluice::test::SluicedProcess sluiced({}, "[::1]:0");
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string base = "[::1]:" + std::to_string(sluiced.port());
  ChildProcess sse({cli(), "sub", "http://" + base + "/sse/v6"});
  ChildProcess ws({cli(), "sub", "ws://" + base + "/ws/v6"});
  ASSERT_TRUE(sse.read_until_contains("sluice: connected", 10s)) << sse.output();
  ASSERT_TRUE(ws.read_until_contains("sluice: connected", 10s)) << ws.output();
  // The WebSocket's subscription follows its handshake: published until
  // both have an event.
  std::string pub_output;
  ASSERT_TRUE(wait_until([&] {
    ChildProcess pub(shell("echo over-v6 | " + cli() + " pub -v http://" + base + "/pub/v6"));
    if (pub.wait(10s) != 0) return false;
    (void)pub.read_to_end(10s);
    pub_output = pub.output();
    return sse.read_until_contains(" message over-v6\n", 10ms) && ws.read_until_contains(" message over-v6\n", 10ms);
  })) << pub_output << sse.output() << ws.output();
  sse.signal(SIGINT);
  ws.signal(SIGINT);
  EXPECT_EQ(sse.wait(10s), 0);
  EXPECT_EQ(ws.wait(10s), 0);
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

std::string mint_token(std::string_view secret, std::vector<std::string> subscribe, std::vector<std::string> publish) {
  auth::SigningKey key;
  EXPECT_EQ(auth::signing_key_from_secret(secret, key), std::nullopt);
  auth::TokenClaims claims;
  claims.subscribe = std::move(subscribe);
  claims.publish = std::move(publish);
  claims.issued_at = std::chrono::system_clock::now();
  claims.ttl = std::chrono::seconds(60);
  std::string token;
  EXPECT_EQ(auth::mint_token(claims, key, token), std::nullopt);
  return token;
}

// The token comes from a file, as the server requires one: over SSE and
// over WebSocket each subscriber connects with it and receives.
TEST_F(Cli, SubReadsItsBearerTokenFromAFile) {
  const std::string secret = "a-secret-of-at-least-thirty-two-bytes!!";
  sluice::test::SluicedProcess sluiced({"auth.mode=jwt", "auth.jwt_secret=" + secret});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string file = ::testing::TempDir() + "sluice_cli_token_" + std::to_string(::getpid());
  std::ofstream(file) << mint_token(secret, {"news"}, {}) << "\n";
  const std::string base = "127.0.0.1:" + std::to_string(sluiced.port());
  ChildProcess sse({cli(), "sub", "--token-file", file, "http://" + base + "/sse/news"});
  ChildProcess ws({cli(), "sub", "--token-file", file, "ws://" + base + "/ws/news"});
  ASSERT_TRUE(sse.read_until_contains("sluice: connected", 10s)) << sse.output();
  ASSERT_TRUE(ws.read_until_contains("sluice: connected", 10s)) << ws.output();
  const std::string publish_token = mint_token(secret, {}, {"news"});
  ASSERT_TRUE(wait_until([&] {
    sluice::test::TestClient publisher(sluiced.port());
    publisher.send("POST /pub/news HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + publish_token +
                   "\r\nContent-Length: 5\r\n\r\nhello");
    EXPECT_EQ(sluice::test::read_reply(publisher).status, 200);
    return sse.read_until_contains(" message hello\n", 10ms) && ws.read_until_contains(" message hello\n", 10ms);
  })) << sse.output() << ws.output();
  sse.signal(SIGINT);
  ws.signal(SIGINT);
  EXPECT_EQ(sse.wait(10s), 0);
  EXPECT_EQ(ws.wait(10s), 0);

  ChildProcess missing({cli(), "sub", "--token-file", file + ".none", "ws://" + base + "/ws/news"});
  EXPECT_EQ(missing.wait(10s), 2);
  ASSERT_TRUE(missing.read_to_end(10s));
  EXPECT_EQ(missing.output(), "sluice: --token-file: cannot open " + file + ".none: No such file or directory\n");
  std::remove(file.c_str());
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

// A token the server refuses ends `sluice sub` with status 1 over a
// WebSocket as over SSE: its close 4401 at once is a refusal, not a
// stream to reconnect to for good.
TEST_F(Cli, SubEndsOnATokenTheServerRefusesOverEitherTransport) {
  sluice::test::SluicedProcess sluiced({"auth.mode=jwt", "auth.jwt_secret=a-secret-of-at-least-thirty-two-bytes!!"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string file = ::testing::TempDir() + "sluice_cli_bad_token_" + std::to_string(::getpid());
  std::ofstream(file) << "not.a.token\n";
  const std::string base = "127.0.0.1:" + std::to_string(sluiced.port());
  for (const std::string& url : {"http://" + base + "/sse/news", "ws://" + base + "/ws/news"}) {
    ChildProcess sub({cli(), "sub", "--token-file", file, url});
    EXPECT_EQ(sub.wait(20s), 1) << url;
    ASSERT_TRUE(sub.read_to_end(10s));
    EXPECT_NE(sub.output().find("401"), std::string::npos) << url << "\n" << sub.output();
    EXPECT_EQ(sub.output().find("reconnecting"), std::string::npos) << url << "\n" << sub.output();
  }
  std::remove(file.c_str());
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

// `sluice pub` against sluiced in jwt mode: a token granting the topic
// publishes (given inline or from a file), one granting another topic is
// refused 403, none at all 401; each refusal is one line naming the status
// and the server's reason, and the token is in no line either side writes.
TEST_F(Cli, PubSendsItsBearerTokenAndReportsEachRefusal) {
  const std::string secret = "a-secret-of-at-least-thirty-two-bytes!!";
  sluice::test::SluicedProcess sluiced({"auth.mode=jwt", "auth.jwt_secret=" + secret, "log.access=1"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  const std::string url = sluiced.base() + "/pub/news";
  const std::string allowed = mint_token(secret, {}, {"news"});
  const std::string other_topic = mint_token(secret, {}, {"sports"});
  const std::string file = ::testing::TempDir() + "sluice_pub_token_" + std::to_string(::getpid());
  std::ofstream(file) << allowed << "\n";
  auto pub = [&](const std::string& options) {
    ChildProcess p(shell("printf 'one\\ntwo\\n' | " + cli() + " pub -v " + options + " " + url));
    const int status = p.wait(10s);
    EXPECT_TRUE(p.read_to_end(10s));
    return std::pair(status, p.output());
  };
  const auto [inline_status, inline_out] = pub("--token " + allowed);
  EXPECT_EQ(inline_status, 0) << inline_out;
  EXPECT_EQ(std::count(inline_out.begin(), inline_out.end(), '\n'), 2) << inline_out;
  const auto [file_status, file_out] = pub("--token-file " + file);
  EXPECT_EQ(file_status, 0) << file_out;
  const auto [wrong_status, wrong_out] = pub("--token=" + other_topic);
  EXPECT_EQ(wrong_status, 1);
  EXPECT_TRUE(wrong_out.starts_with("sluice: line 1: ") && wrong_out.find("403") != std::string::npos) << wrong_out;
  const auto [none_status, none_out] = pub("");
  EXPECT_EQ(none_status, 1);
  EXPECT_TRUE(none_out.starts_with("sluice: line 1: ") && none_out.find("401") != std::string::npos) << none_out;
  const auto [both_status, both_out] = pub("--token " + allowed + " --token-file " + file);
  EXPECT_EQ(both_status, 2) << both_out;
  const auto [missing_status, missing_out] = pub("--token-file " + file + ".none");
  EXPECT_EQ(missing_status, 2);
  EXPECT_EQ(missing_out, "sluice: --token-file: cannot open " + file + ".none: No such file or directory\n");
  // What gives no token is said at start, naming why: a device with no end,
  // a FIFO (which would hold the client until some writer came), a file
  // with nothing on its first line.
  const auto [endless_status, endless_out] = pub("--token-file /dev/zero");
  EXPECT_EQ(endless_status, 2) << endless_out;
  EXPECT_EQ(endless_out, "sluice: --token-file: /dev/zero is not a regular file\n");
  const std::string fifo = file + ".fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto [fifo_status, fifo_out] = pub("--token-file " + fifo);
  EXPECT_EQ(fifo_status, 2) << fifo_out;
  EXPECT_EQ(fifo_out, "sluice: --token-file: " + fifo + " is not a regular file\n");
  std::remove(fifo.c_str());
  std::ofstream(file) << "\n";
  const auto [empty_status, empty_out] = pub("--token-file " + file);
  EXPECT_EQ(empty_status, 2) << empty_out;
  EXPECT_EQ(empty_out, "sluice: --token-file: " + file + ": nothing on its first line\n");
  std::remove(file.c_str());
  EXPECT_EQ(sluiced.stop(), 0);
  const std::string server_log = sluiced.output();
  EXPECT_NE(server_log.find("/pub/news"), std::string::npos) << "the access log is on: " << server_log;
  for (const std::string& token : {allowed, other_topic}) {
    EXPECT_EQ(server_log.find(token), std::string::npos);
    EXPECT_EQ(wrong_out.find(token), std::string::npos);
    EXPECT_EQ(both_out.find(token), std::string::npos);
  }
}

// --token is wiped from the process's own arguments once read: another
// user's `ps` sees x's where it was. The process waits on a FIFO for its
// standard input, so the test can look at it while it runs.
TEST_F(Cli, PubWipesAnInlineTokenFromItsArguments) {
  const std::string fifo = ::testing::TempDir() + "sluice_pub_stdin_" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string token = "secret-token-in-argv";
  ChildProcess sh(shell(cli() + " pub --token " + token + " http://127.0.0.1:9/pub/t < " + fifo + " & echo $!"));
  ASSERT_TRUE(sh.read_until_contains("\n", 10s));
  const std::string pid = sh.output().substr(0, sh.output().find('\n'));
  const int writer = ::open(fifo.c_str(), O_WRONLY);  // lets the background shell open it and exec
  ASSERT_GE(writer, 0);
  std::string arguments;
  EXPECT_TRUE(wait_until([&] {
    std::ifstream cmdline("/proc/" + pid + "/cmdline");
    arguments.assign(std::istreambuf_iterator<char>(cmdline), {});
    std::replace(arguments.begin(), arguments.end(), '\0', ' ');
    return arguments.find(" pub --token xxxxxxxx") != std::string::npos;
  })) << arguments;
  EXPECT_EQ(arguments.find(token), std::string::npos) << arguments;
  ::close(writer);  // end of input: the publisher exits having published nothing
  EXPECT_EQ(sh.wait(10s), 0);
  std::remove(fifo.c_str());
}

}  // namespace
}  // namespace sluice::client::test
