// Each scenario, run for about a second through the sluice-bench binary
// against a live sluiced, prints well-formed JSON with deliveries. Nothing
// here is timed: figures belong in docs/BENCHMARKS.md.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "child_process.hpp"
#include "net_namespace.hpp"

namespace sluice::bench {
namespace {

using namespace std::chrono_literals;

// Runs one scenario against `server` (sluiced unless given) and returns its result.
nlohmann::json run_bench(const std::string& args, std::string server = {}) {
  if (server.empty()) server = "sluice=" + test::env_path("SLUICED") + " --listen 127.0.0.1:0";
  const std::string command = std::string(SLUICE_BENCH_PATH) + " " + args + " --quiet --json --server '" + server +
                              "' 2>/dev/null";
  test::ChildProcess bench({"/bin/sh", "-c", command});
  EXPECT_TRUE(bench.read_to_end(60s));
  EXPECT_EQ(bench.wait(10s), 0) << bench.output();
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << bench.output();
  if (doc.is_discarded() || doc["results"].size() != 1) return nlohmann::json::object();
  EXPECT_EQ(doc["results"][0]["server"], server.substr(0, server.find('=')));
  EXPECT_GE(doc["machine"]["cores"].get<int>(), 1);
  return doc["results"][0];
}

// Runs the bench with `args` naming its servers; the whole JSON document,
// after checking the exit code.
nlohmann::json run_bench_all(const std::string& args, int exit_code = 0) {
  test::ChildProcess bench({"/bin/sh", "-c", std::string(SLUICE_BENCH_PATH) + " " + args + " --quiet --json 2>/dev/null"});
  EXPECT_TRUE(bench.read_to_end(60s));
  EXPECT_EQ(bench.wait(10s), exit_code) << bench.output();
  nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << bench.output();
  return doc.is_discarded() ? nlohmann::json::object() : doc;
}

// A row with every event of every stream, in order, and no error.
void expect_every_event(const nlohmann::json& r) {
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_GT(r.value("events_per_s", 0.0), 0) << r.dump();
  EXPECT_EQ(r.value("streams_failed", -1), 0) << r.dump();
  EXPECT_EQ(r.value("gaps", -1), 0) << r.dump();
  EXPECT_EQ(r.value("streams_with_gaps", -1), 0) << r.dump();
  EXPECT_EQ(r.value("order_errors", -1), 0) << r.dump();
}

std::string sluiced_command() { return test::env_path("SLUICED") + " --listen 127.0.0.1:0"; }
std::string sluiced_tls_command() {
  return sluiced_command() + " --set tls.cert_file={cert} --set tls.key_file={key}";
}

TEST(Scenarios, FanoutDeliversToEverySubscriber) {
  const nlohmann::json r = run_bench("fanout -n 10 -d 1 --warmup 0.2 --rate 2000");
  EXPECT_GT(r.value("events_per_s", 0.0), 0);
  EXPECT_GT(r.value("latency_samples", 0), 0);
  EXPECT_EQ(r.value("streams_failed", -1), 0);
  EXPECT_LE(r.value("latency_p50_us", -1.0), r.value("latency_max_us", -2.0));
  // The bench started this server, so it can say what its CPU cost.
  EXPECT_GE(r.value("server_cpu_ns_per_event", -1.0), 0);
  // And what the client cost, and whether that was the limit.
  EXPECT_GT(r.value("client_cpu_cores", -1.0), 0);
  EXPECT_GE(r.value("client_reader_cpu_cores", -1.0), 0);
  EXPECT_TRUE(r.contains("client_limit") && r["client_limit"].is_boolean());
  EXPECT_EQ(r.value("own_events", true), false);
  EXPECT_EQ(r.value("streams_with_gaps", -1), 0);
}

#ifdef SOL_SERVER_PATH
// The speed-of-light server makes its own events: no publisher runs, and
// its repeated batch reads as one unbroken sequence on either protocol.
TEST(Scenarios, FanoutFromTheSpeedOfLightServerIsUnbroken) {
  for (const char* proto : {"ws", "sse"}) {
    const nlohmann::json r = run_bench(std::string("fanout --proto ") + proto + " -n 4 -d 0.5 --warmup 0.2",
                                       std::string("sol=") + SOL_SERVER_PATH + " --listen 127.0.0.1:0");
    EXPECT_EQ(r.value("own_events", false), true) << proto;
    EXPECT_GT(r.value("events_per_s", 0.0), 0) << proto;
    EXPECT_EQ(r.value("gaps", -1), 0) << proto;
    EXPECT_EQ(r.value("order_errors", -1), 0) << proto;
    EXPECT_EQ(r.value("streams_failed", -1), 0) << proto;
    EXPECT_EQ(r.value("latency_samples", -1), 0) << proto << ": its batch is never stamped";
  }
}

#ifdef SLUICED_INPROC_PATH
// sluiced-inproc publishes from a thread inside the server: the bench starts
// no publisher and its readers count and check every event, over either
// protocol. Flat out through publish_waiting, and at a rate the readers keep
// up with through publish, no subscriber is cut off and none misses an event
// or sees one out of order; the server's CPU per event is reported as for
// any server the bench starts.
TEST(Scenarios, FanoutFromAnInProcessPublisherDeliversEveryEventInOrder) {
  // A wait as long as the server allows: on a loaded machine a reader can
  // miss its core for longer than the default 200 ms, and a wait that runs
  // out cuts off the subscribers still short of room (as it should).
  const std::string peer =
      std::string(SLUICED_INPROC_PATH) + " --listen 127.0.0.1:0 --threads 1 --start-after 4 --wait-ms 10000";
  for (const char* proto : {"ws", "sse"}) {
    SCOPED_TRACE(proto);
    const nlohmann::json doc = run_bench_all(std::string("fanout --proto ") + proto +
                                             " -n 4 -d 0.5 --warmup 0.2 --server 'waiting=" + peer +
                                             " --publish waiting' --server 'publish=" + peer + " --rate 5000'");
    ASSERT_EQ(doc.value("results", nlohmann::json::array()).size(), 2u) << doc.dump();
    for (const nlohmann::json& r : doc["results"]) {
      expect_every_event(r);
      EXPECT_EQ(r.value("own_events", false), true) << r.dump();
      EXPECT_EQ(r.value("streams_closed", -1), 0) << r.dump();
      EXPECT_GT(r.value("latency_samples", 0), 0) << r.dump() << ": each event is stamped";
      EXPECT_GT(r.value("server_cpu_ns_per_event", -1.0), 0) << r.dump();
    }
  }
}
#endif

// Over TLS, in one run: sluiced with the run's certificate (its
// subscribers and publisher speak TLS, verified against the CA the run
// made), and the speed-of-light server, whose batch, encrypted per
// subscriber, still reads as one unbroken sequence.
TEST(Scenarios, FanoutOverTlsFromSluicedAndTheSpeedOfLight) {
  const std::string command =
      std::string(SLUICE_BENCH_PATH) + " fanout --proto ws -n 3 -d 0.1 --warmup 0.05 --rate 2000 --quiet --json" +
      " --tls-server 'sluice-tls=" + test::env_path("SLUICED") +
      " --listen 127.0.0.1:0 --set tls.cert_file={cert} --set tls.key_file={key}'" + " --tls-server 'sol-tls=" +
      SOL_SERVER_PATH + " --listen 127.0.0.1:0 --tls-cert {cert} --tls-key {key}' 2>/dev/null";
  test::ChildProcess bench({"/bin/sh", "-c", command});
  ASSERT_TRUE(bench.read_to_end(60s));
  EXPECT_EQ(bench.wait(10s), 0) << bench.output();
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << bench.output();
  ASSERT_EQ(doc["results"].size(), 2u);
  for (const nlohmann::json& r : doc["results"]) {
    EXPECT_EQ(r.value("tls", false), true) << r.dump();
    EXPECT_GT(r.value("events_per_s", 0.0), 0) << r.dump();
    EXPECT_EQ(r.value("streams_failed", -1), 0) << r.dump();
    EXPECT_EQ(r.value("gaps", -1), 0) << r.dump();
    EXPECT_EQ(r.value("order_errors", -1), 0) << r.dump();
  }
  EXPECT_GT(doc["results"][0].value("published_per_s", 0.0), 0) << "sluiced's publisher spoke TLS too";
  EXPECT_EQ(doc["results"][1].value("own_events", false), true);
}

// A TLS server whose certificate the run's CA did not sign is refused: the
// bench verifies, it does not just encrypt.
TEST(Scenarios, FanoutOverTlsRefusesACertificateTheRunDidNotMake) {
  char dir[] = "/tmp/bench-foreign-cert-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string cert = std::string(dir) + "/cert.pem";
  const std::string key = std::string(dir) + "/key.pem";
  test::ChildProcess openssl({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                              "-keyout", key, "-out", cert});
  ASSERT_TRUE(openssl.read_to_end(30s));
  ASSERT_EQ(openssl.wait(10s), 0) << openssl.output();
  const std::string command = std::string(SLUICE_BENCH_PATH) +
                              " fanout -n 2 -d 0.2 --warmup 0.1 --quiet --json --tls-server 'foreign=" +
                              SOL_SERVER_PATH + " --listen 127.0.0.1:0 --tls-cert " + cert + " --tls-key " + key +
                              "' 2>/dev/null";
  test::ChildProcess bench({"/bin/sh", "-c", command});
  ASSERT_TRUE(bench.read_to_end(60s));
  EXPECT_EQ(bench.wait(10s), 1) << bench.output();
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << bench.output();
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_NE(doc["results"][0].value("error", "").find("certificate not trusted"), std::string::npos)
      << doc["results"][0].dump();
  std::filesystem::remove_all(dir);
}

TEST(Scenarios, ConnectionsFromSeveralAddressesThroughTheRelay) {
  const nlohmann::json r = run_bench("connections -n 40 --sources 4 -b 3",
                                     std::string("sol=") + SOL_SERVER_PATH + " --listen 127.0.0.1:0 --mode relay");
  EXPECT_EQ(r.value("subscribers", 0), 40);
  EXPECT_EQ(r.value("latency_samples", 0), 120);
  EXPECT_EQ(r.value("gaps", -1), 0);
}
#endif

TEST(Scenarios, ConnectionsReportsConnectRateMemoryAndBroadcastLatency) {
  const nlohmann::json r = run_bench("connections -n 50 --sources 3 -b 2");
  EXPECT_EQ(r.value("subscribers", 0), 50);
  EXPECT_EQ(r.value("sources", 0), 3);
  EXPECT_GT(r.value("connect_per_s", 0.0), 0);
  EXPECT_GT(r.value("server_rss_bytes", 0), 0);
  EXPECT_EQ(r.value("latency_samples", 0), 100) << "one per subscriber per measured broadcast";
  EXPECT_LE(r.value("latency_p50_us", -1.0), r.value("latency_max_us", -2.0));
  EXPECT_EQ(r.value("gaps", -1), 0);
  EXPECT_EQ(r.value("streams_with_gaps", -1), 0);
  EXPECT_EQ(r.value("streams_closed", -1), 0);
  EXPECT_FALSE(r.contains("error")) << r.dump();
}

// The subscribers in two worker processes: the row is the merge of both,
// each worker held its half, and every subscriber's sample of every
// measured broadcast came back.
TEST(Scenarios, ConnectionsSplitOverWorkerProcessesMergesEverySubscriber) {
  const nlohmann::json r = run_bench("connections -n 300 --workers 2 --sources 3 -b 2");
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r.value("subscribers", 0), 300);
  EXPECT_EQ(r.value("workers", 0), 2);
  ASSERT_TRUE(r.contains("worker_counts"));
  ASSERT_EQ(r["worker_counts"].size(), 2u);
  for (const auto& w : r["worker_counts"]) {
    EXPECT_EQ(w.value("ready", 0), 150) << w.dump();
    EXPECT_EQ(w.value("failed", -1), 0) << w.dump();
  }
  EXPECT_EQ(r.value("latency_samples", 0), 600) << "one per subscriber per measured broadcast";
  EXPECT_EQ(r.value("gaps", -1), 0);
  EXPECT_EQ(r.value("streams_closed", -1), 0);
  EXPECT_GE(r.value("client_reader_cpu_cores", -1.0), 0);
}

// Three sluiced nodes joined through a redis-server the bench starts: the
// subscribers are spread over the nodes, every broadcast POSTed to the
// first reaches all of them, and the memory is read per node.
TEST(Scenarios, ConnectionsOverNodesJoinedByRedisReachEveryNode) {
  const char* redis = std::getenv("REDIS_SERVER");
  const nlohmann::json r = run_bench(std::string("connections -n 90 --workers 2 --nodes 3 -b 2") +
                                     (redis != nullptr ? std::string(" --redis-server ") + redis : std::string()));
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r.value("subscribers", 0), 90);
  EXPECT_EQ(r.value("node_count", 0), 3);
  EXPECT_TRUE(r.contains("broker")) << r.dump();
  ASSERT_TRUE(r.contains("nodes"));
  ASSERT_EQ(r["nodes"].size(), 3u);
  std::int64_t rss = 0;
  for (const auto& node : r["nodes"]) {
    EXPECT_EQ(node.value("subscribers", 0), 30) << node.dump();
    EXPECT_GT(node.value("rss_bytes", std::int64_t{0}), 0) << node.dump();
    rss += node.value("rss_bytes", std::int64_t{0});
  }
  EXPECT_EQ(r.value("server_rss_bytes", std::int64_t{0}), rss) << "the nodes' sum";
  EXPECT_EQ(r.value("latency_samples", 0), 180) << "every subscriber on every node, each measured broadcast";
  EXPECT_EQ(r.value("gaps", -1), 0);
  EXPECT_EQ(r.value("streams_closed", -1), 0);
}

TEST(Scenarios, ClientCeilingParsesEveryForm) {
  test::ChildProcess bench({"/bin/sh", "-c", std::string(SLUICE_BENCH_PATH) + " client-ceiling -d 0.1 --json 2>/dev/null"});
  ASSERT_TRUE(bench.read_to_end(60s));
  EXPECT_EQ(bench.wait(10s), 0) << bench.output();
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << bench.output();
  ASSERT_EQ(doc["results"].size(), 3u);
  for (const auto& r : doc["results"]) {
    EXPECT_GT(r.value("events_per_s", 0.0), 0) << r.dump();
    EXPECT_EQ(r.value("gaps", -1), 0) << r.dump();
    EXPECT_GT(r.value("latency_samples", 0), 0) << r.dump();
  }
}

TEST(Scenarios, BurstDrainsEveryRound) {
  const nlohmann::json r = run_bench("burst -k 200 --rounds 2");
  EXPECT_EQ(r.value("rounds_complete", 0), 2);
  EXPECT_GT(r.value("events_per_segment", 0.0), 0);
}

TEST(Scenarios, BurstThroughTheLinkEmulator) {
  const nlohmann::json r = run_bench("burst -k 100 --rounds 1 --link rate=8mbit,delay=5ms,window=5760");
  EXPECT_EQ(r.value("rounds_complete", 0), 1);
  EXPECT_NE(r.value("link", ""), "");
}

TEST(Scenarios, SlowConsumerRecordsAgeOverTime) {
  const nlohmann::json r = run_bench("slow-consumer -d 1 -f 50 -R 20 -s 256");
  EXPECT_GT(r.value("events_read", 0), 0);
  ASSERT_TRUE(r.contains("series"));
  EXPECT_GE(r["series"].size(), 3u);
}

TEST(Scenarios, PoolPressureKeepsProbing) {
  const nlohmann::json r = run_bench("pool-pressure -d 1 --stalled 5 -s 4096");
  EXPECT_GT(r.value("published", 0), 0);
  EXPECT_GT(r.value("handshake_samples", 0), 0);
  EXPECT_GT(r.value("ws_ping_samples", 0), 0);
  EXPECT_LE(r.value("ws_ping_p50_us", -1.0), r.value("ws_ping_max_us", -2.0));
}

TEST(Scenarios, BulkMovesBytes) {
  const nlohmann::json r = run_bench("bulk -d 1 --no-iperf");
  EXPECT_GT(r.value("bytes_per_s", 0.0), 0);
}

// Over h2c, ten subscribers as streams of one connection and as five
// connections of two: each stream's events are checked one by one, so a
// lost or reordered event on any stream shows as a gap or an order error.
TEST(Scenarios, FanoutOverH2cStreamsDeliversEveryEvent) {
  for (const char* per_connection : {"10", "2"}) {
    SCOPED_TRACE(per_connection);
    const nlohmann::json r = run_bench(std::string("fanout -n 10 -d 1 --warmup 0.2 --rate 2000 --h2c "
                                                   "--streams-per-connection ") + per_connection);
    EXPECT_FALSE(r.contains("error")) << r.dump();
    EXPECT_GT(r.value("events_per_s", 0.0), 0);
    EXPECT_GT(r.value("latency_samples", 0), 0);
    EXPECT_EQ(r.value("streams_failed", -1), 0);
    EXPECT_EQ(r.value("gaps", -1), 0);
    EXPECT_EQ(r.value("streams_with_gaps", -1), 0);
    EXPECT_EQ(r.value("order_errors", -1), 0);
  }
}

// With auth.mode=jwt and no anonymous access, every h2c stream must carry
// the token (in its path's query, as over HTTP/1.1: a path longer than
// HPACK's one-byte length) or it is answered 401 and the run fails.
TEST(Scenarios, FanoutOverH2cCarriesTheToken) {
  const std::string secret = "bench-h2c-secret-0123456789abcdef";
  test::ChildProcess python({"/usr/bin/python3", "-c",
                             "import jwt, sys, time\n"
                             "print(jwt.encode({'sub': 'bench', 'exp': int(time.time()) + 600, 'sluice': "
                             "{'subscribe': ['fanout'], 'publish': ['fanout']}}, sys.argv[1], algorithm='HS256'))\n",
                             secret});
  ASSERT_TRUE(python.read_to_end(10s));
  ASSERT_EQ(python.wait(5s), 0) << python.output();
  std::string token = python.output();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  ASSERT_GT(token.size(), 127u);
  const std::string server = "jwt=" + test::env_path("SLUICED") + " --listen 127.0.0.1:0 --set auth.mode=jwt" +
                             " --set auth.jwt_secret=" + secret;
  const nlohmann::json r = run_bench("fanout -n 4 -d 1 --warmup 0.2 --rate 2000 --h2c --streams-per-connection 2 "
                                     "--token " + token, server);
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_GT(r.value("events_per_s", 0.0), 0);
  EXPECT_EQ(r.value("streams_failed", -1), 0);
  EXPECT_EQ(r.value("gaps", -1), 0);
}

// One run, the transport chosen per server: HTTP/1.1, h2c with a stream
// to a connection and h2c with ten, twice over in interleaved rounds.
// Each row is its own server's, in the order given, every event of every
// stream checked.
TEST(Scenarios, FanoutOverHttp1AndH2cSideBySideInOneRun) {
  const std::string s = sluiced_command();
  const nlohmann::json doc = run_bench_all("fanout -n 10 -d 0.3 --warmup 0.1 --rate 2000 --repeat 2 --server 'h1=" + s +
                                           "' --server 'one@h2c=" + s + "' --server 'ten@h2c/10=" + s + "'");
  ASSERT_EQ(doc.value("results", nlohmann::json::array()).size(), 6u) << doc.dump();
  const char* names[] = {"h1", "one@h2c", "ten@h2c/10"};
  for (std::size_t i = 0; i < 6; ++i) {
    const nlohmann::json& r = doc["results"][i];
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r.value("server", ""), names[i % 3]);
    EXPECT_EQ(r.value("round", 0), static_cast<int>(i / 3 + 1));
    expect_every_event(r);
  }
  EXPECT_FALSE(doc["results"][0].contains("transport"));
  EXPECT_EQ(doc["results"][1].value("transport", ""), "h2c");
  EXPECT_EQ(doc["results"][1].value("streams_per_connection", 0), 1);
  EXPECT_EQ(doc["results"][2].value("streams_per_connection", 0), 10);
}

// Over TLS the subscribers of NAME@h2 ask ALPN for h2 alone and read
// HTTP/2 frames, five streams to a connection, beside TLS over HTTP/1.1
// and plain TCP in the same run; the publisher POSTs over TLS HTTP/1.1.
TEST(Scenarios, FanoutOverTlsWithAlpnH2DeliversEveryEvent) {
  const nlohmann::json doc = run_bench_all("fanout -n 10 -d 0.3 --warmup 0.1 --rate 2000 --server 'plain=" +
                                           sluiced_command() + "' --tls-server 'tls=" + sluiced_tls_command() +
                                           "' --tls-server 'tls@h2/5=" + sluiced_tls_command() + "'");
  ASSERT_EQ(doc.value("results", nlohmann::json::array()).size(), 3u) << doc.dump();
  for (const nlohmann::json& r : doc["results"]) expect_every_event(r);
  const nlohmann::json& h2 = doc["results"][2];
  EXPECT_EQ(h2.value("tls", false), true);
  EXPECT_EQ(h2.value("transport", ""), "h2");
  EXPECT_EQ(h2.value("streams_per_connection", 0), 5);
  EXPECT_GT(h2.value("published_per_s", 0.0), 0);
}

// A TLS server that does not offer h2 (HTTP/2 turned off) is refused at
// the handshake, saying h2 was asked for, not read as HTTP/1.1.
TEST(Scenarios, FanoutOverTlsH2RefusesAServerWithoutH2) {
  const nlohmann::json doc = run_bench_all(
      "fanout -n 2 -d 0.2 --warmup 0.1 --tls-server 'no-h2@h2=" + sluiced_tls_command() + " --set h2.enabled=0'", 1);
  ASSERT_EQ(doc.value("results", nlohmann::json::array()).size(), 1u) << doc.dump();
  EXPECT_NE(doc["results"][0].value("error", "").find("ALPN for h2"), std::string::npos) << doc.dump();
}

// A WebSocket publisher over TLS (HTTP/1.1 by ALPN), to SSE subscribers
// over h2 by ALPN and to WebSocket subscribers over TLS: every event, in
// order, and the publisher's events all taken.
TEST(Scenarios, FanoutPublishedByWebSocketOverTlsDeliversEveryEvent) {
  for (const char* readers : {"--tls-server 'tls@h2/5=", "--proto ws --tls-server 'tls="}) {
    SCOPED_TRACE(readers);
    const nlohmann::json doc = run_bench_all(std::string("fanout -n 10 -d 0.3 --warmup 0.1 --rate 2000 --publish ws ") +
                                             readers + sluiced_tls_command() + "'");
    ASSERT_EQ(doc.value("results", nlohmann::json::array()).size(), 1u) << doc.dump();
    const nlohmann::json& r = doc["results"][0];
    expect_every_event(r);
    EXPECT_EQ(r.value("tls", false), true);
    EXPECT_GT(r.value("published_per_s", 0.0), 0) << r.dump();
  }
}

TEST(Scenarios, FanoutOverWebSocketDeliversInOrder) {
  const nlohmann::json r = run_bench("fanout --proto ws -n 10 -d 1 --warmup 0.2 --rate 2000");
  EXPECT_GT(r.value("events_per_s", 0.0), 0);
  EXPECT_GT(r.value("latency_samples", 0), 0);
  EXPECT_EQ(r.value("streams_failed", -1), 0);
  EXPECT_EQ(r.value("order_errors", -1), 0);
}

TEST(Scenarios, SlowConsumerOverWebSocketRecordsAge) {
  const nlohmann::json r = run_bench("slow-consumer --proto ws -d 1 -f 50 -R 20 -s 256");
  EXPECT_GT(r.value("events_read", 0), 0);
  EXPECT_EQ(r.value("order_errors", -1), 0);
  ASSERT_TRUE(r.contains("series"));
  EXPECT_GE(r["series"].size(), 3u);
}

// Through the packet link the reader reads from another network namespace:
// its events crossed the link (the link counted them). Skipped where the
// bench may not make namespaces or tun devices.
TEST(Scenarios, SlowConsumerReadsThroughThePacketLink) {
  std::string why;  // NetNamespace::make says why it cannot
  if (::access("/dev/net/tun", R_OK | W_OK) != 0) {
    why = "no usable /dev/net/tun";
  } else {
    static_cast<void>(NetNamespace::make(why));
  }
  if (!why.empty()) GTEST_SKIP() << why;
  const nlohmann::json r = run_bench("slow-consumer -d 1 -f 50 -R 20 -s 256 --link delay=5ms,mode=packet");
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_GT(r.value("events_read", 0), 0) << r.dump();
  EXPECT_NE(r.value("link", "").find("packet link"), std::string::npos) << r.dump();
  ASSERT_TRUE(r.contains("link_packets")) << r.dump();
  EXPECT_GT(r["link_packets"].value("down_bytes", 0), r.value("events_read", 0) * 256) << r.dump();
  EXPECT_GT(r["link_packets"].value("up", 0), 0) << r.dump();
}

// A scenario whose clients do not place themselves in the link's
// namespaces refuses mode=packet as its command line is parsed.
TEST(Scenarios, APacketLinkIsRefusedWhereTheScenarioCannotTakeIt) {
  test::ChildProcess bench({"/bin/sh", "-c",
                           std::string(SLUICE_BENCH_PATH) + " fanout -d 1 --quiet --link delay=5ms,mode=packet 2>&1"});
  ASSERT_TRUE(bench.read_to_end(60s));
  EXPECT_NE(bench.wait(10s), 0);
  EXPECT_NE(bench.output().find("mode=packet"), std::string::npos) << bench.output();
}

// The slow reader over TLS, HTTP/1.1 and h2 by ALPN, with its publisher
// over TLS too: it reads, in order, and its age is recorded slot by slot.
TEST(Scenarios, SlowConsumerOverTlsRecordsAge) {
  for (const char* proto : {"sse", "ws"}) {
    SCOPED_TRACE(proto);
    const nlohmann::json doc =
        run_bench_all(std::string("slow-consumer -d 1 -f 50 -R 20 -s 256 --proto ") + proto + " --tls-server 'tls=" +
                      sluiced_tls_command() + "' --tls-server 'tls@h2=" + sluiced_tls_command() + "'");
    ASSERT_EQ(doc.value("results", nlohmann::json::array()).size(), 2u) << doc.dump();
    for (const nlohmann::json& r : doc["results"]) {
      EXPECT_FALSE(r.contains("error")) << r.dump();
      EXPECT_EQ(r.value("tls", false), true);
      EXPECT_GT(r.value("events_read", 0), 0) << r.dump();
      EXPECT_EQ(r.value("order_errors", -1), 0) << r.dump();
      ASSERT_TRUE(r.contains("series"));
      EXPECT_GE(r["series"].size(), 3u);
    }
    EXPECT_EQ(doc["results"][1].value("transport", ""), "h2");
  }
}

TEST(Scenarios, ConcurrentSendDeliversEveryMessageIntactInOrder) {
  const nlohmann::json r = run_bench("concurrent-send -T 10 -M 50");
  EXPECT_EQ(r.value("delivered", 0), 500);
  EXPECT_EQ(r.value("intact", 0), 500);
  EXPECT_EQ(r.value("lost", -1), 0);
  EXPECT_EQ(r.value("reordered", -1), 0);
  EXPECT_EQ(r.value("corrupted", -1), 0);
  EXPECT_GT(r.value("msgs_per_s", 0.0), 0);
}

TEST(Scenarios, ConcurrentSendFromWebSocketPublishersDeliversEveryMessage) {
  const nlohmann::json r = run_bench("concurrent-send -T 10 -M 50 --publish ws");
  EXPECT_EQ(r.value("intact", 0), 500);
  EXPECT_EQ(r.value("lost", -1), 0);
  EXPECT_EQ(r.value("reordered", -1), 0);
  EXPECT_EQ(r.value("corrupted", -1), 0);
}

TEST(Scenarios, ATargetNobodyListensOnIsNamedInTheError) {
  // A port bound but not listening: connecting is refused, and while the
  // socket stays open no other test can start listening on it.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  const std::string target = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  test::ChildProcess bench({"/bin/sh", "-c",
                           std::string(SLUICE_BENCH_PATH) + " fanout -d 1 --quiet --json --target " + target +
                               " 2>/dev/null"});
  ASSERT_TRUE(bench.read_to_end(60s));
  EXPECT_NE(bench.wait(10s), 0);
  ::close(fd);
  const nlohmann::json doc = nlohmann::json::parse(bench.output(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << bench.output();
  const std::string error = doc["results"][0].value("error", "");
  EXPECT_NE(error.find("cannot connect to --target " + target), std::string::npos) << error;
}

}  // namespace
}  // namespace sluice::bench
