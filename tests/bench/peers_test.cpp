// The servers of bench/peers/ started as sluice-bench starts them (port 0,
// the port read from their "listening on" line) and checked over WebSocket
// with the raw test client: beast-peer and websocketpp-peer must carry 100
// events from a /pub/{topic} WebSocket to a /ws/{topic} subscriber whole and
// in order, and cut off a subscriber that stops reading; sol-server must
// complete a valid handshake and send unmasked text frames in the bench's
// payload format: its prebuilt batch repeated without a gap, each relayed
// event to every subscriber, or a burst; sluiced-inproc must publish the
// bench's payloads from its own thread without skipping a number, stop at
// once while it sleeps for its rate, and exit 1 naming a publish refused
// for good. A peer that
// was not built (its Debian package missing) is skipped. Each refuses a
// bad --listen with its usage line and exit code 2.
#include <gtest/gtest.h>

#include <charconv>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::bench {
namespace {

using namespace std::chrono_literals;
using test::ws::WsTestClient;

constexpr std::string_view kBanner = "listening on 127.0.0.1:";

// The port `peer` printed; 0 when it printed none in time.
std::uint16_t port_of(test::ChildProcess& peer) {
  if (!peer.read_until_contains(std::string(kBanner), 10s) || !peer.read_until_contains("\n", 10s)) return 0;
  const std::string& out = peer.output();
  const std::size_t at = out.find(kBanner) + kBanner.size();
  std::uint16_t port = 0;
  std::from_chars(out.data() + at, out.data() + out.size(), port);
  return port;
}

// A payload of a size that differs per event, so that both the 7-bit and
// the 16-bit frame length forms are crossed.
std::string event(int i) { return "event " + std::to_string(i) + " " + std::string(static_cast<std::size_t>(i) * 7, 'x'); }

// POSTs "ready" until the peer counts `subscribers` on the topic: from then
// on every subscriber is known to be in it. Each POST is answered after the
// event was queued, so nothing is timed.
testing::AssertionResult wait_subscribed(std::uint16_t port, int subscribers) {
  const std::string wanted = "\"subscribers\":" + std::to_string(subscribers);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const test::HttpReply reply = test::http_request(port, "POST", "/pub/peers", "ready");
    if (reply.status != 200) return testing::AssertionFailure() << "POST answered " << reply.status;
    if (reply.body.find(wanted) != std::string::npos) return testing::AssertionSuccess();
  }
  return testing::AssertionFailure() << "never " << wanted;
}

// A payload's sequence number: 14 hex digits at bytes 18..31.
std::optional<std::uint64_t> sequence_of(std::string_view payload) {
  std::uint64_t seq = 0;
  if (payload.size() < 32) return std::nullopt;
  const auto [end, ec] = std::from_chars(payload.data() + 18, payload.data() + 32, seq, 16);
  if (ec != std::errc() || end != payload.data() + 32) return std::nullopt;
  return seq;
}

void expect_relays_in_order(const char* path) {
  test::ChildProcess peer({path, "--listen", "127.0.0.1:0"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  WsTestClient subscriber(port);
  ASSERT_TRUE(subscriber.open("/ws/peers"));
  ASSERT_TRUE(wait_subscribed(port, 1));
  const auto ready = subscriber.read_message(5s);
  ASSERT_TRUE(ready && ready->payload == "ready");

  WsTestClient publisher(port);
  ASSERT_TRUE(publisher.open("/pub/peers"));
  for (int i = 0; i < 100; ++i) publisher.send({.payload = event(i)});
  for (int i = 0; i < 100; ++i) {
    const auto message = subscriber.read_message(5s);
    ASSERT_TRUE(message) << "event " << i << " missing";
    EXPECT_EQ(message->opcode, test::ws::kText);
    EXPECT_FALSE(message->masked);
    ASSERT_EQ(message->payload, event(i));
  }
}

// A subscriber that never reads, with a 4 KiB receive buffer, while 20,000
// events of 1 KiB are published: more than the peer's queue bound plus what
// the kernel holds. It must be cut off before it has read them all: with a
// close frame carrying `close_code`, or, when that is 0, by the end of the
// connection.
void expect_stalled_subscriber_cut_off(const char* path, int close_code) {
  constexpr int kEvents = 20'000;
  test::ChildProcess peer({path, "--listen", "127.0.0.1:0"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  WsTestClient stalled(port, 4096);
  ASSERT_TRUE(stalled.open("/ws/peers"));
  ASSERT_TRUE(wait_subscribed(port, 1));
  WsTestClient publisher(port);
  ASSERT_TRUE(publisher.open("/pub/peers"));
  const std::string body(1024, 'y');
  for (int i = 0; i < kEvents; ++i) publisher.send({.payload = body});
  // The peer counts no subscriber once it has cut the stalled one off.
  ASSERT_TRUE(wait_subscribed(port, 0));

  int read = 0;
  std::optional<test::ws::ServerFrame> frame;
  while ((frame = stalled.read_frame(5s)) && frame->opcode == test::ws::kText) ++read;
  EXPECT_LT(read, kEvents + 1);  // + the first "ready"
  testing::Test::RecordProperty("events_read", read);
  if (close_code == 0) {
    EXPECT_FALSE(frame) << "opcode " << int{frame->opcode};
    EXPECT_TRUE(stalled.socket().eof());
  } else {
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->close_code(), close_code);
  }
}

TEST(BeastPeer, RelaysAHundredWebSocketEventsInOrder) {
#ifdef BEAST_PEER_PATH
  expect_relays_in_order(BEAST_PEER_PATH);
#else
  GTEST_SKIP() << "beast-peer not built";
#endif
}

TEST(BeastPeer, CutsOffAStalledWebSocketSubscriber) {
#ifdef BEAST_PEER_PATH
  expect_stalled_subscriber_cut_off(BEAST_PEER_PATH, 0);
#else
  GTEST_SKIP() << "beast-peer not built";
#endif
}

TEST(BeastPeer, PostReachesSseAndWebSocketSubscribers) {
#ifdef BEAST_PEER_PATH
  test::ChildProcess peer({BEAST_PEER_PATH, "--listen", "127.0.0.1:0"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  test::SseSubscriber sse(port, "/sse/peers");
  ASSERT_TRUE(sse.opened());
  WsTestClient ws(port);
  ASSERT_TRUE(ws.open("/ws/peers"));
  ASSERT_TRUE(wait_subscribed(port, 2));
  ASSERT_TRUE(sse.wait_for(1));
  EXPECT_EQ(sse.events()[0].data, "ready");
  const auto message = ws.read_message(5s);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->payload, "ready");
#else
  GTEST_SKIP() << "beast-peer not built";
#endif
}

TEST(WebsocketppPeer, RelaysAHundredWebSocketEventsInOrder) {
#ifdef WEBSOCKETPP_PEER_PATH
  expect_relays_in_order(WEBSOCKETPP_PEER_PATH);
#else
  GTEST_SKIP() << "websocketpp-peer not built";
#endif
}

TEST(WebsocketppPeer, ClosesAStalledSubscriberWith1008) {
#ifdef WEBSOCKETPP_PEER_PATH
  expect_stalled_subscriber_cut_off(WEBSOCKETPP_PEER_PATH, 1008);
#else
  GTEST_SKIP() << "websocketpp-peer not built";
#endif
}

TEST(WebsocketppPeer, AnswersHealthzAndRefusesOtherUpgrades) {
#ifdef WEBSOCKETPP_PEER_PATH
  test::ChildProcess peer({WEBSOCKETPP_PEER_PATH, "--listen", "127.0.0.1:0"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  EXPECT_EQ(test::http_request(port, "GET", "/healthz").status, 200);
  EXPECT_EQ(test::http_request(port, "GET", "/nowhere").status, 404);
  WsTestClient other(port);
  EXPECT_FALSE(other.open("/elsewhere"));
#else
  GTEST_SKIP() << "websocketpp-peer not built";
#endif
}

#if defined(SOL_SERVER_PATH) || defined(SLUICED_INPROC_PATH)
// A frame of sol-server or sluiced-inproc: unmasked final text, 64 bytes of the bench's
// payload from publisher `index` numbered `seq`.
void expect_sol_frame(const std::optional<test::ws::ServerFrame>& frame, std::uint64_t seq, std::string_view index = "00") {
  ASSERT_TRUE(frame) << "frame " << seq << " missing";
  EXPECT_EQ(frame->opcode, test::ws::kText);
  EXPECT_TRUE(frame->fin);
  EXPECT_FALSE(frame->masked);
  ASSERT_EQ(frame->payload.size(), 64u);
  EXPECT_EQ(frame->payload.substr(16, 2), index);
  EXPECT_EQ(sequence_of(frame->payload), seq);
  const char filler_base = index == "ff" ? static_cast<char>((63 + 0xff) % 26) : static_cast<char>(63 % 26);
  EXPECT_EQ(frame->payload[63], static_cast<char>('a' + filler_base));  // the bench's filler
}
#endif

#ifdef SOL_SERVER_PATH
// Subscribes to a stream-mode sol-server started with `options` through a
// receive buffer of `receive_buffer` bytes, smaller than a round's 16,896
// (so sends are short and the socket fills), and checks four rounds of
// the batch: the same 256 numbered frames of the generator (index ff,
// stamp zero) over and over, without a byte missing.
void expect_repeated_batch(const std::vector<std::string>& options, int receive_buffer = 4096) {
  std::vector<std::string> argv = {SOL_SERVER_PATH, "--listen", "127.0.0.1:0"};
  argv.insert(argv.end(), options.begin(), options.end());
  test::ChildProcess peer(argv);
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  WsTestClient subscriber(port, receive_buffer);
  const test::ws::UpgradeReply reply = subscriber.upgrade({.path = "/ws/peers"});
  ASSERT_EQ(reply.status, 101) << reply.head;
  EXPECT_TRUE(reply.accept_valid);
  for (int round = 0; round < 4; ++round) {
    for (std::uint64_t seq = 1; seq <= 256; ++seq) {
      const auto frame = subscriber.read_frame(5s);
      ASSERT_NO_FATAL_FAILURE(expect_sol_frame(frame, seq, "ff")) << "round " << round;
      ASSERT_EQ(frame->payload.substr(0, 16), std::string(16, '0')) << "never stamped";
    }
  }
  const test::HttpReply posted = test::http_request(port, "POST", "/pub/peers", "ignored");
  EXPECT_EQ(posted.status, 200);
  EXPECT_NE(posted.body.find("\"generator\":true"), std::string::npos) << posted.body;
}
#endif

// The stream mode sends one prebuilt batch, never rewritten, however the
// socket drains (it never skips).
TEST(SolServer, RepeatsOnePrebuiltBatchWithoutAGap) {
#ifdef SOL_SERVER_PATH
  expect_repeated_batch({});
#else
  GTEST_SKIP() << "sol-server not built";
#endif
}

// The same stream when each round's sends go in one io_uring submission:
// short sends and full sockets are answered as send()'s are.
TEST(SolServer, RepeatsTheBatchWithoutAGapThroughIoUring) {
#if defined(SOL_SERVER_PATH) && defined(SOL_SERVER_HAS_URING)
  expect_repeated_batch({"--uring"});
#else
  GTEST_SKIP() << "sol-server not built with liburing";
#endif
}

// The same stream with MSG_ZEROCOPY sends, alone and through io_uring: the
// kernel's notifications on the error queue do not end the subscriber.
// The reader takes 16 KiB: behind a 4 KiB buffer, zero-copy segments over
// loopback cross about 2 KB per 200 ms retransmission timeout.
TEST(SolServer, RepeatsTheBatchWithoutAGapWithZeroCopySends) {
#ifdef SOL_SERVER_PATH
  expect_repeated_batch({"--zerocopy"}, 16384);
#ifdef SOL_SERVER_HAS_URING
  expect_repeated_batch({"--uring", "--zerocopy"}, 16384);
#endif
#else
  GTEST_SKIP() << "sol-server not built";
#endif
}

// The relay mode frames each published body once and sends it to every
// subscriber, WebSocket and SSE.
TEST(SolServer, RelaysEachPublishedEventToEverySubscriber) {
#ifdef SOL_SERVER_PATH
  test::ChildProcess peer({SOL_SERVER_PATH, "--listen", "127.0.0.1:0", "--mode", "relay"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  WsTestClient ws(port);
  ASSERT_TRUE(ws.open("/ws/peers"));
  test::SseSubscriber sse(port, "/sse/peers");
  ASSERT_TRUE(sse.opened());
  ASSERT_TRUE(wait_subscribed(port, 2));  // relays "ready" until both are counted
  for (int i = 0; i < 3; ++i) {
    const test::HttpReply posted = test::http_request(port, "POST", "/pub/peers", event(i));
    ASSERT_EQ(posted.status, 200);
    EXPECT_EQ(posted.body.find("generator"), std::string::npos);
  }
  std::vector<std::string> got;
  for (std::optional<test::ws::ServerFrame> m; got.size() < 3 && (m = ws.read_message(5s));) {
    if (m->payload != "ready") got.push_back(m->payload);
  }
  EXPECT_EQ(got, (std::vector<std::string>{event(0), event(1), event(2)}));
  const auto relayed = [&sse] {
    std::vector<std::string> out;
    for (const auto& e : sse.events()) {
      if (e.data != "ready") out.push_back(e.data);
    }
    return out;
  };
  for (int i = 0; i < 10 && relayed().size() < 3 && sse.wait_for(sse.events().size() + 1, 5s); ++i) {
  }
  const std::vector<std::string> sse_got = relayed();
  EXPECT_EQ(sse_got, (std::vector<std::string>{event(0), event(1), event(2)}));
#else
  GTEST_SKIP() << "sol-server not built";
#endif
}

TEST(SolServer, BurstsPrebuiltFramesAndAcceptsAWebSocketPublisher) {
#ifdef SOL_SERVER_PATH
  test::ChildProcess peer({SOL_SERVER_PATH, "--listen", "127.0.0.1:0", "--mode", "burst", "--events", "300"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  WsTestClient publisher(port);
  ASSERT_TRUE(publisher.open("/pub/peers"));
  for (int i = 0; i < 100; ++i) publisher.send({.payload = event(i)});
  WsTestClient subscriber(port);
  ASSERT_TRUE(subscriber.open("/ws/peers"));
  for (std::uint64_t seq = 1; seq <= 300; ++seq) ASSERT_NO_FATAL_FAILURE(expect_sol_frame(subscriber.read_frame(5s), seq));
  EXPECT_EQ(test::http_request(port, "GET", "/healthz").status, 200);
#else
  GTEST_SKIP() << "sol-server not built";
#endif
}

// sluiced-inproc publishes from a thread inside the server, once a stream
// is open: the bench's 64-byte payloads from publisher 00, numbered one
// after another with none skipped, by publish() and by publish_waiting(),
// one at a time (by the topic's name or through a Publisher of it) and in
// batches of 16 (publish_batch, publish_batch_waiting);
// a client's publish is refused with the answer sluice-bench reads as "this
// server makes its own events".
TEST(SluicedInproc, PublishesNumberedEventsFromItsThreadAndRefusesClientPublishes) {
#ifdef SLUICED_INPROC_PATH
  struct Way {
    const char* call;
    const char* batch;
    const char* via = "name";
  };
  for (const Way way : {Way{"publish", "1"}, Way{"waiting", "1"}, Way{"publish", "1", "publisher"},
                        Way{"waiting", "1", "publisher"}, Way{"publish", "16"}, Way{"waiting", "16"}}) {
    SCOPED_TRACE(std::string(way.call) + " in batches of " + way.batch + " via " + way.via);
    test::ChildProcess peer({SLUICED_INPROC_PATH, "--listen", "127.0.0.1:0", "--threads", "1", "--topic", "peers",
                             "--publish", way.call, "--batch", way.batch, "--via", way.via, "--rate", "5000"});
    const std::uint16_t port = port_of(peer);
    ASSERT_NE(port, 0) << peer.output();
    WsTestClient subscriber(port);
    ASSERT_TRUE(subscriber.open("/ws/peers"));
    const auto first = subscriber.read_message(5s);
    ASSERT_TRUE(first) << "no event";
    const std::optional<std::uint64_t> first_seq = sequence_of(first->payload);
    ASSERT_TRUE(first_seq) << first->payload;
    for (std::uint64_t seq = *first_seq + 1; seq <= *first_seq + 300; ++seq) {
      ASSERT_NO_FATAL_FAILURE(expect_sol_frame(subscriber.read_message(5s), seq));
    }
    const test::HttpReply posted = test::http_request(port, "POST", "/pub/peers", "from a client");
    EXPECT_EQ(posted.status, 403);
    EXPECT_NE(posted.body.find("\"generator\":true"), std::string::npos) << posted.body;
  }
#else
  GTEST_SKIP() << "sluiced-inproc not built";
#endif
}

// With --stamp-every 4 the clock is read for events 1, 5, 9, ...: each
// group of four carries one stamp, and each group a later one than the
// group before (at 5,000 events/s a group spans 800 us).
TEST(SluicedInproc, StampsOneEventInEveryStampEveryAndTheRestCarryItsStamp) {
#ifdef SLUICED_INPROC_PATH
  test::ChildProcess peer({SLUICED_INPROC_PATH, "--listen", "127.0.0.1:0", "--threads", "1", "--topic", "peers",
                           "--via", "publisher", "--stamp-every", "4", "--rate", "5000"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  WsTestClient subscriber(port);
  ASSERT_TRUE(subscriber.open("/ws/peers"));
  std::vector<std::string> stamps;  // from the first group's first event on
  std::uint64_t first = 0;
  while (stamps.size() < 40) {
    const auto m = subscriber.read_message(5s);
    ASSERT_TRUE(m) << "no event";
    const std::optional<std::uint64_t> seq = sequence_of(m->payload);
    ASSERT_TRUE(seq) << m->payload;
    if (stamps.empty() && (*seq - 1) % 4 != 0) continue;  // joined within a group: wait for the next
    if (stamps.empty()) first = *seq;
    ASSERT_EQ(*seq, first + stamps.size()) << "events come one after another";
    stamps.push_back(m->payload.substr(0, 16));  // fixed-width hex: compared as strings
  }
  for (std::size_t i = 1; i < stamps.size(); ++i) {
    if (i % 4 == 0) {
      EXPECT_GT(stamps[i], stamps[i - 1]) << "event " << i << " should be stamped anew";
    } else {
      EXPECT_EQ(stamps[i], stamps[i - 1]) << "event " << i << " should carry its group's stamp";
    }
  }
#else
  GTEST_SKIP() << "sluiced-inproc not built";
#endif
}

// Stopped while its thread sleeps for the rate (here 50 s between events,
// the first one delivered), it exits cleanly without waiting the sleep out:
// well within the 10 s it is given, a fifth of the sleep.
TEST(SluicedInproc, StopsWithoutWaitingOutTheSleepBetweenEvents) {
#ifdef SLUICED_INPROC_PATH
  test::ChildProcess peer({SLUICED_INPROC_PATH, "--listen", "127.0.0.1:0", "--threads", "1", "--topic", "peers",
                           "--rate", "0.02"});
  const std::uint16_t port = port_of(peer);
  ASSERT_NE(port, 0) << peer.output();
  {
    WsTestClient subscriber(port);
    ASSERT_TRUE(subscriber.open("/ws/peers"));
    const auto first = subscriber.read_message(5s);
    ASSERT_TRUE(first) << "no event";
    EXPECT_EQ(sequence_of(first->payload), 1u) << first->payload;
  }
  peer.signal(SIGTERM);
  EXPECT_EQ(peer.wait(10s), 0) << peer.output();
#else
  GTEST_SKIP() << "sluiced-inproc not built";
#endif
}

// A publish the server refuses for good (a topic name it cannot take) ends
// the thread, and with it the process: exit code 1 and a line naming the
// status, not a server that serves on with nothing to send.
TEST(SluicedInproc, APublishRefusedForGoodEndsItWithALineNamingTheStatus) {
#ifdef SLUICED_INPROC_PATH
  for (const char* via : {"name", "publisher"}) {
    SCOPED_TRACE(via);
    test::ChildProcess peer({SLUICED_INPROC_PATH, "--listen", "127.0.0.1:0", "--threads", "1", "--topic",
                             "no spaces", "--start-after", "0", "--via", via});
    EXPECT_TRUE(peer.read_to_end(10s)) << peer.output();
    EXPECT_EQ(peer.wait(10s), 1) << peer.output();
    EXPECT_NE(peer.output().find("sluiced-inproc: publish of event 1 answered bad_topic"), std::string::npos)
        << peer.output();
  }
#else
  GTEST_SKIP() << "sluiced-inproc not built";
#endif
}

// Its options are sluiced's and its own; a bad one ends it with exit code 2
// and a line naming it.
TEST(SluicedInproc, RefusesABadOptionNamingIt) {
#ifdef SLUICED_INPROC_PATH
  struct Bad {
    std::string option, value, named;
  };
  const std::vector<Bad> bad = {{"--listen", "nonsense", "listen"},
                                {"--set", "pool.block_count=0", "pool.block_count"},
                                {"--publish", "sometimes", "--publish"},
                                {"--size", "8", "--size"},
                                {"--batch", "0", "--batch"},
                                {"--stamp-every", "0", "--stamp-every"}};
  for (const Bad& b : bad) {
    test::ChildProcess peer({SLUICED_INPROC_PATH, b.option, b.value});
    EXPECT_TRUE(peer.read_to_end(10s));
    EXPECT_EQ(peer.wait(10s), 2) << b.option << " " << b.value;
    EXPECT_NE(peer.output().find(b.named), std::string::npos) << peer.output();
  }
  // A Publisher publishes one event per call: asked for batches too, it
  // says so rather than ignore one of the two.
  test::ChildProcess both({SLUICED_INPROC_PATH, "--via", "publisher", "--batch", "16"});
  EXPECT_TRUE(both.read_to_end(10s));
  EXPECT_EQ(both.wait(10s), 2);
  EXPECT_NE(both.output().find("--via publisher publishes one event per call: it takes no --batch over 1"),
            std::string::npos)
      << both.output();
  test::ChildProcess stamped_batches({SLUICED_INPROC_PATH, "--stamp-every", "4", "--batch", "16"});
  EXPECT_TRUE(stamped_batches.read_to_end(10s));
  EXPECT_EQ(stamped_batches.wait(10s), 2);
  EXPECT_NE(stamped_batches.output().find("--stamp-every is for one event per call"), std::string::npos)
      << stamped_batches.output();
#else
  GTEST_SKIP() << "sluiced-inproc not built";
#endif
}

TEST(Peers, RefuseABadListenArgumentWithUsage) {
  std::vector<const char*> built;
#ifdef BEAST_PEER_PATH
  built.push_back(BEAST_PEER_PATH);
#endif
#ifdef WEBSOCKETPP_PEER_PATH
  built.push_back(WEBSOCKETPP_PEER_PATH);
#endif
#ifdef SOL_SERVER_PATH
  built.push_back(SOL_SERVER_PATH);
#endif
  for (const char* path : built) {
    for (const char* listen : {"nonsense", "127.0.0.1:99999", "127.0.0.1:"}) {
      test::ChildProcess peer({path, "--listen", listen});
      EXPECT_TRUE(peer.read_to_end(10s));
      EXPECT_EQ(peer.wait(10s), 2) << path << " --listen " << listen;
      EXPECT_NE(peer.output().find("usage:"), std::string::npos) << peer.output();
    }
  }
}

}  // namespace
}  // namespace sluice::bench
