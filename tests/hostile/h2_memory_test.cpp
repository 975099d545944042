// What an HTTP/2 connection holds (nghttp2's state for the session and
// each stream, the server's own state per stream, a POST body joined from
// its blocks) is charged to the connection's memory account with the rest
// of what its client makes the server hold. A client opening stream after
// stream sees the charge rise with each, and once the account has no room
// for another stream's header list the new stream is refused with
// RST_STREAM(REFUSED_STREAM) while the open ones go on; the charge stays
// under limits.connection_bytes, and under limits.server_bytes for many
// such connections together, and goes back when the connection closes.
// nghttp2's client API plays the client; over TLS, Node's `http2`.
#include <gtest/gtest.h>

#include <nghttp2/nghttp2.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "eventually.hpp"
#include "h2_test_client.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::H2TestClient;

constexpr std::size_t kKiB = 1024;

// An account small enough for a few dozen streams; the message and body
// limits lowered with it, as the start-up check asks.
server::Config small_account(std::size_t connection_bytes, std::size_t server_bytes) {
  server::Config config;
  config.threads = 1;
  config.connection.memory_bytes = connection_bytes;
  config.server_memory_bytes = static_cast<std::int64_t>(server_bytes);
  config.ws.max_message = 16 * kKiB;
  config.http.max_body = 16 * kKiB;
  config.h2.max_header_list_bytes = 4 * kKiB;
  return config;
}

// Opens SSE streams on `client` until one is refused (or `limit` open).
// Returns the ids opened; `refused` is the refused one's (0: none).
std::vector<std::int32_t> open_until_refused(H2TestClient& client, int limit, std::int32_t& refused,
                                             const std::function<void(std::size_t)>& after_each = {}) {
  std::vector<std::int32_t> opened;
  refused = 0;
  for (int i = 0; i < limit; ++i) {
    const std::int32_t id = client.request("GET", "/sse/h2mem" + std::to_string(i));
    if (id <= 0 || !client.pump([&] { return client.stream(id).status != 0 || client.stream(id).closed; })) break;
    if (client.stream(id).closed) {
      refused = id;
      break;
    }
    opened.push_back(id);
    if (after_each) after_each(opened.size());
  }
  return opened;
}

TEST(H2MemoryBudget, StreamsAreChargedAndOnePastTheConnectionsShareIsRefused) {
  constexpr std::size_t kConnectionBytes = 64 * kKiB;
  RunningServer server(small_account(kConnectionBytes, 64 * 1024 * kKiB));
  auto owned = std::make_unique<H2TestClient>(server.port());
  H2TestClient& client = *owned;
  ASSERT_TRUE(client.ok());
  // The session's own state is charged once the preface is in.
  const std::int32_t first = client.request("GET", "/sse/h2mem-first");
  ASSERT_TRUE(client.pump([&] { return client.stream(first).status == 200; }));
  const std::size_t one_stream = server.server().memory_stats().charged;
  EXPECT_GT(one_stream, 0u) << "nghttp2's session is not charged";

  std::vector<std::size_t> charges;
  std::int32_t refused = 0;
  const std::vector<std::int32_t> opened = open_until_refused(
      client, 100, refused, [&](std::size_t) { charges.push_back(server.server().memory_stats().charged); });
  ASSERT_NE(refused, 0) << "no stream was refused; charged " << server.server().memory_stats().charged;
  EXPECT_EQ(client.stream(refused).error_code, static_cast<std::uint32_t>(NGHTTP2_REFUSED_STREAM));
  ASSERT_GE(opened.size(), 4u);
  // The charge rises with the streams, and never passes the share.
  EXPECT_GT(charges.back(), charges.front() + (opened.size() - 1) * 512) << "streams are not charged";
  for (const std::size_t charged : charges) EXPECT_LE(charged, kConnectionBytes);
  EXPECT_GE(server.server().memory_stats().refused_by_connection, 1u);

  // The open streams go on: an event reaches the first and the last.
  TestClient publisher(server.port());
  EXPECT_EQ(publish(publisher, "/pub/h2mem0", "to the first"), 200);
  EXPECT_EQ(publish(publisher, "/pub/h2mem" + std::to_string(opened.size() - 1), "to the last"), 200);
  EXPECT_TRUE(client.pump([&] {
    return client.stream(opened.front()).body.find("to the first") != std::string::npos &&
           client.stream(opened.back()).body.find("to the last") != std::string::npos;
  }));

  // Closing the connection gives all of it back.
  owned.reset();
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after close: " << server.server().memory_stats().charged;
}

// Three clients, each with room in its own share for a few dozen streams,
// against a server-wide cap that holds about one and a half shares: the
// second is refused streams by the cap before its share is used, the third
// finds no room even for its session and is sent GOAWAY(ENHANCE_YOUR_CALM)
// naming the key. The total stays under the cap, and every connection's
// charge goes back when it closes.
TEST(H2MemoryBudget, ManyConnectionsTogetherStayUnderTheServersCap) {
  constexpr std::size_t kServerBytes = 100 * kKiB;
  RunningServer server(small_account(64 * kKiB, kServerBytes));
  std::vector<std::unique_ptr<H2TestClient>> clients;
  std::vector<std::size_t> opened;
  for (int c = 0; c < 3; ++c) {
    clients.push_back(std::make_unique<H2TestClient>(server.port()));
    H2TestClient& client = *clients.back();
    ASSERT_TRUE(client.ok());
    std::int32_t refused = 0;
    opened.push_back(open_until_refused(client, 100, refused).size());
    // Each is told: a stream refused, or the session.
    if (refused != 0) {
      EXPECT_EQ(client.stream(refused).error_code, static_cast<std::uint32_t>(NGHTTP2_REFUSED_STREAM)) << c;
    } else {
      EXPECT_TRUE(client.goaway()) << "client " << c << " was neither refused a stream nor sent GOAWAY";
      EXPECT_EQ(client.goaway_code(), static_cast<std::uint32_t>(NGHTTP2_ENHANCE_YOUR_CALM));
    }
    EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  }
  EXPECT_GE(server.server().memory_stats().refused_by_server, 1u);
  EXPECT_GT(opened[0], opened[1]) << "the cap left the second as much as the first";
  EXPECT_EQ(opened[2], 0u);
  EXPECT_TRUE(clients[2]->goaway());
  clients.clear();
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after close: " << server.server().memory_stats().charged;
}

// The same share over TLS, with Node's http2 client and a CA made for the
// test: the TLS record buffers are charged apart from the share, so the
// share meets the streams as over TCP. Streams are opened until one is
// refused with RST_STREAM(REFUSED_STREAM); the full connection is still
// read, and its first and last open streams get the events published to
// them from a second connection; closing gives every byte back.
TEST(H2MemoryBudget, OverTlsAStreamPastTheShareIsRefusedAndTheOpenOnesGoOn) {
  TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const ServerCert cert = certs.server("localhost");
  ASSERT_FALSE(cert.cert_file.empty()) << certs.error();
  server::Config config = small_account(64 * kKiB, 64 * 1024 * kKiB);
  config.tls.cert_file = cert.cert_file;
  config.tls.key_file = cert.key_file;
  RunningServer server(config);

  ChildProcess node({"node", SLUICE_SOURCE_DIR "/tests/peers/h2_streams_until_refused.mjs",
                     "https://127.0.0.1:" + std::to_string(server.port()), certs.ca_file(), "100"});
  ASSERT_TRUE(node.read_to_end(std::chrono::seconds(30))) << node.output();
  EXPECT_EQ(node.wait(std::chrono::seconds(5)), 0) << node.output();
  const std::string done = "the next refused (REFUSED_STREAM); the first and the last got their events, protocol h2";
  EXPECT_NE(node.output().find(done), std::string::npos) << node.output();
  EXPECT_GE(server.server().memory_stats().refused_by_connection, 1u);
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after close: " << server.server().memory_stats().charged;
}

}  // namespace
}  // namespace sluice::test
