// Nchan as sluice-bench starts it (bench/peers/nchan_peer.sh on port 0, the
// port read from its "listening on" line): one event published by POST
// reaches a subscriber on each of /sse/{topic} and /ws/{topic}, and so does
// one published over a WebSocket on /pub/{topic}, whose acknowledgement
// (Nchan's channel state, not sluiced's format) comes back on the
// publishing socket. Skipped, saying why, when nginx or the Nchan module is
// not installed.
#include <unistd.h>

#include <gtest/gtest.h>

#include <charconv>
#include <string>

#include "child_process.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::bench {
namespace {

using namespace std::chrono_literals;
using test::ws::WsTestClient;

constexpr const char* kModule = "/usr/lib/nginx/modules/ngx_nchan_module.so";
constexpr std::string_view kBanner = "listening on 127.0.0.1:";

bool nchan_installed() { return ::access(kModule, R_OK) == 0 && ::access("/usr/sbin/nginx", X_OK) == 0; }

std::uint16_t port_of(test::ChildProcess& peer) {
  if (!peer.read_until_contains(std::string(kBanner), 15s) || !peer.read_until_contains("\n", 5s)) return 0;
  const std::string& out = peer.output();
  const std::size_t at = out.find(kBanner) + kBanner.size();
  std::uint16_t port = 0;
  std::from_chars(out.data() + at, out.data() + out.size(), port);
  return port;
}

// Asks the publisher URL for the channel's state (GET publishes nothing)
// until Nchan counts `subscribers` on it.
testing::AssertionResult wait_subscribed(std::uint16_t port, const std::string& topic, int subscribers) {
  const std::string wanted = "active subscribers: " + std::to_string(subscribers);
  std::string last;
  for (int attempt = 0; attempt < 500; ++attempt) {
    const test::HttpReply reply = test::http_request(port, "GET", "/pub/" + topic);
    last = std::to_string(reply.status) + " " + reply.body;
    if (reply.status == 200 && reply.body.find(wanted) != std::string::npos) return testing::AssertionSuccess();
  }
  return testing::AssertionFailure() << "never " << wanted << "; last answer: " << last;
}

TEST(NchanPeer, AnEventArrivesThroughEveryUrl) {
  if (!nchan_installed()) {
    GTEST_SKIP() << "Nchan is not installed (" << kModule << " and /usr/sbin/nginx; Debian: nginx-light libnginx-mod-nchan)";
  }
  test::ChildProcess peer({NCHAN_PEER_PATH, "--listen", "127.0.0.1:0"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();

  test::SseSubscriber sse(port, "/sse/peers");
  ASSERT_TRUE(sse.opened()) << "no 200 for an EventSource request";
  WsTestClient ws(port);
  ASSERT_TRUE(ws.open("/ws/peers"));
  ASSERT_TRUE(wait_subscribed(port, "peers", 2));

  const test::HttpReply posted = test::http_request(port, "POST", "/pub/peers", "by post");
  EXPECT_EQ(posted.status / 100, 2) << posted.head;
  ASSERT_TRUE(sse.wait_for(1));
  EXPECT_EQ(sse.events()[0].data, "by post");
  auto message = ws.read_message(5s);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->payload, "by post");

  WsTestClient publisher(port);
  ASSERT_TRUE(publisher.open("/pub/peers"));
  publisher.send({.payload = "by websocket"});
  const auto ack = publisher.read_message(5s);
  ASSERT_TRUE(ack) << "no acknowledgement on the publishing WebSocket";
  EXPECT_NE(ack->payload.find("active subscribers: 2"), std::string::npos) << ack->payload;
  ASSERT_TRUE(sse.wait_for(2));
  EXPECT_EQ(sse.events()[1].data, "by websocket");
  message = ws.read_message(5s);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->payload, "by websocket");
}

TEST(NchanPeer, RefusesABadListenArgumentWithUsage) {
  for (const char* listen : {"nonsense", "127.0.0.1:99999", "127.0.0.1:"}) {
    test::ChildProcess peer({NCHAN_PEER_PATH, "--listen", listen});
    EXPECT_TRUE(peer.read_to_end(10s));
    EXPECT_EQ(peer.wait(10s), 2) << "--listen " << listen;
    EXPECT_NE(peer.output().find("usage:"), std::string::npos) << peer.output();
  }
}

}  // namespace
}  // namespace sluice::bench
