// The embedded push server on a real lwIP: SSE and WebSocket subscribers
// connect with lwIP's own TCP (raw peers on the client's interface), the
// server runs through PushListener's slots, and every byte crosses lwIP's
// TCP both ways inside the test process.
#include "embedded/lwip/push_listener.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buf/pool.hpp"
#include "buf/string_sink.hpp"
#include "embedded/push_server.hpp"
#include "lwip_net.hpp"
#include "proto/sse.hpp"
#include "proto/sse_parser.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_encoder.hpp"
#include "raw_peers.hpp"

namespace sluice::embedded::lwip {
namespace {

using test::LwipNet;
using test::RawPeer;

constexpr std::string_view kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
constexpr std::string_view kWsKey = "dGhlIHNhbXBsZSBub25jZQ==";  // RFC 6455 §1.3
constexpr std::string_view kWsAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

std::string sse_request(std::string_view topic) {
  return "GET /sse/" + std::string(topic) + " HTTP/1.1\r\nHost: device\r\nAccept: text/event-stream\r\n\r\n";
}

std::string ws_request(std::string_view topic) {
  return "GET /ws/" + std::string(topic) +
         " HTTP/1.1\r\nHost: device\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: " + std::string(kWsKey) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
}

std::string event_data(std::uint64_t n, std::size_t pad = 40) {
  return "{\"n\":" + std::to_string(n) + ",\"pad\":\"" + std::string(pad, 'x') + "\"}";
}

// What an SSE reader got after the response head.
struct SseStream final : proto::sse::Handler {
  void on_event(const proto::sse::ReceivedEvent& event) override {
    if (event.type == "message") {
      ids.push_back(std::stoull(std::string(event.id)));
      data.push_back(std::string(event.data));
    } else {
      notices.push_back(std::string(event.type) + " " + std::string(event.data));
    }
  }
  std::vector<std::uint64_t> ids;
  std::vector<std::string> data;
  std::vector<std::string> notices;
};

SseStream parse_sse(const std::string& bytes) {
  SseStream stream;
  if (bytes.compare(0, kSseHead.size(), kSseHead) != 0) {
    ADD_FAILURE() << "no SSE head: " << bytes.substr(0, 80);
    return stream;
  }
  proto::sse::Parser parser;
  EXPECT_EQ(parser.feed(std::string_view(bytes).substr(kSseHead.size()), stream), proto::sse::ParseStatus::ok);
  return stream;
}

// What a WebSocket client got: the response head, then frames.
struct WsStream {
  std::string head;
  std::vector<std::string> messages;
  std::vector<std::string> pongs;
  bool closed = false;
};

WsStream parse_ws(const std::string& bytes) {
  WsStream stream;
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string::npos) return stream;
  stream.head = bytes.substr(0, end + 4);
  proto::ws::Decoder decoder({.role = proto::ws::Role::client});
  std::span<const char> in(bytes.data() + end + 4, bytes.size() - end - 4);
  while (!in.empty()) {
    const proto::ws::DecodeResult r = decoder.feed(in);
    in = in.subspan(r.consumed);
    const std::string payload(r.payload.data(), r.payload.size());
    if (r.status == proto::ws::DecodeStatus::message) stream.messages.push_back(payload);
    if (r.status == proto::ws::DecodeStatus::pong) stream.pongs.push_back(payload);
    if (r.status == proto::ws::DecodeStatus::close) stream.closed = true;
    EXPECT_NE(r.status, proto::ws::DecodeStatus::error) << r.error;
    if (r.status == proto::ws::DecodeStatus::need_more || r.status == proto::ws::DecodeStatus::error) break;
  }
  return stream;
}

std::string masked(proto::ws::Opcode op, std::string_view payload) {
  std::string out;
  buf::StringSink sink(out);
  const proto::ws::MaskKey key{0x12, 0x34, 0x56, 0x78};
  EXPECT_TRUE(proto::ws::encode_masked_frame(op, true, false, std::span<const char>(payload.data(), payload.size()),
                                             key, sink));
  return out;
}

class PushListenerTest : public testing::Test {
 protected:
  void start(const buf::PoolConfig& pool_config, const TcpConnectionLimits& limits = {},
             const embedded::PushConfig& config = {}) {
    pool.emplace(pool_config);
    ASSERT_TRUE(pool->ok());
    server.emplace(*pool, config);
    listener.emplace(net.new_server_pcb(LwipNet::kPort), *server, slots, scratch, limits);
    ASSERT_TRUE(listener->ok());
  }

  std::unique_ptr<RawPeer> connect_and_send(const std::string& request) {
    std::unique_ptr<RawPeer> peer = RawPeer::connect(net);
    EXPECT_NE(peer, nullptr);
    EXPECT_TRUE(net.run_until([&] { return peer->connected(); }));
    peer->send(request);
    return peer;
  }
  std::unique_ptr<RawPeer> subscribe_sse(std::string_view topic) {
    std::unique_ptr<RawPeer> peer = connect_and_send(sse_request(topic));
    EXPECT_TRUE(net.run_until([&] { return peer->received().size() >= kSseHead.size(); }));
    return peer;
  }
  std::unique_ptr<RawPeer> subscribe_ws(std::string_view topic) {
    std::unique_ptr<RawPeer> peer = connect_and_send(ws_request(topic));
    EXPECT_TRUE(net.run_until([&] { return peer->received().find("\r\n\r\n") != std::string::npos; }));
    EXPECT_NE(peer->received().find(kWsAccept), std::string::npos) << peer->received();
    return peer;
  }

  // Publishes 150-byte events to `topic` until a subscriber is cut off.
  bool publish_until_cut_off(std::string_view topic) {
    std::uint64_t published = 0;
    std::size_t cut_off = 0;
    return net.run_until([&] {
      cut_off += server->publish(topic, event_data(++published, 150)).cut_off;
      server->flush();
      return cut_off > 0;
    }, 100000);
  }

  // The most data frames any open connection has queued.
  std::size_t deepest_queue() const {
    std::size_t deepest = 0;
    for (const PushSlot& slot : slots) {
      if (!slot.free()) deepest = std::max(deepest, slot.tcp()->out().data_frames());
    }
    return deepest;
  }

  LwipNet net;
  std::optional<buf::Pool> pool;
  std::optional<embedded::PushServer> server;
  PushSlot slots[4];
  char scratch[TCP_MSS];
  std::optional<PushListener> listener;
};

// Bytes a subscriber receives for events 1..count.
std::size_t sse_bytes(std::uint64_t count) {
  std::size_t total = 0;
  for (std::uint64_t n = 1; n <= count; ++n) {
    const std::string id = std::to_string(n);
    const std::string data = event_data(n);
    total += proto::sse::encoded_size({.id = id, .data = data});
  }
  return total;
}
std::size_t ws_bytes(std::uint64_t count) {
  std::size_t total = 0;
  for (std::uint64_t n = 1; n <= count; ++n) {
    const std::size_t size = event_data(n).size();
    total += proto::ws::frame_header_size(size, false) + size;
  }
  return total;
}

// 1,000 events to an SSE and a WebSocket subscriber, ten per batch, the
// application publishing a batch whenever the queues are short (as a
// sensor loop would); every event arrives, in order, and TCP segments
// carry many events each, not one.
TEST_F(PushListenerTest, SseAndWebSocketSubscribersGetAThousandEventsInOrder) {
  start({.block_count = 512, .block_size = 256, .reserve = 16, .prefault = false});
  std::unique_ptr<RawPeer> sse = subscribe_sse("ticks");
  std::unique_ptr<RawPeer> ws = subscribe_ws("ticks");
  ASSERT_EQ(server->subscribers("ticks"), 2u);
  net.run_for(1000);  // the heads acknowledged

  constexpr std::uint64_t kEvents = 1000;
  const std::size_t sse_total = kSseHead.size() + sse_bytes(kEvents);
  const std::size_t ws_total = ws->received().size() + ws_bytes(kEvents);
  const test::SegmentCount before = net.sent_by_server();
  std::uint64_t published = 0;
  ASSERT_TRUE(net.run_until([&] {
    if (published < kEvents && deepest_queue() <= 6) {
      for (int i = 0; i < 10; ++i) {
        const embedded::PublishReport report = server->publish("ticks", event_data(++published));
        EXPECT_EQ(report.queued, 2u);
        EXPECT_EQ(report.id, published);
      }
      server->flush();
    }
    return sse->received().size() >= sse_total && ws->received().size() >= ws_total;
  }));

  const SseStream got_sse = parse_sse(sse->received());
  const WsStream got_ws = parse_ws(ws->received());
  ASSERT_EQ(got_sse.ids.size(), kEvents);
  ASSERT_EQ(got_ws.messages.size(), kEvents);
  for (std::size_t n = 1; n <= kEvents; ++n) {
    ASSERT_EQ(got_sse.ids[n - 1], n);
    ASSERT_EQ(got_sse.data[n - 1], event_data(n));
    ASSERT_EQ(got_ws.messages[n - 1], event_data(n));
  }
  EXPECT_TRUE(got_sse.notices.empty());

  const std::uint64_t segments = net.sent_by_server().data_segments - before.data_segments;
  const double per_segment = static_cast<double>(2 * kEvents) / static_cast<double>(segments);
  std::uint64_t writes = 0;
  for (const PushSlot& slot : slots) writes += slot.tcp() != nullptr ? slot.tcp()->writer_stats().tcp_writes : 0;
  std::printf("lwIP push server, 2 subscribers x %llu events, 10 per batch: %llu data segments, %.1f events per "
              "segment, %llu tcp_write calls\n",
              static_cast<unsigned long long>(kEvents), static_cast<unsigned long long>(segments), per_segment,
              static_cast<unsigned long long>(writes));
  RecordProperty("events_per_segment", std::to_string(per_segment));
  EXPECT_GT(per_segment, 1.0);
  EXPECT_EQ(pool->free_blocks(), pool->stats().block_count);  // copied by lwIP: every block back
}

// NuttX's default buffer pool, 40 blocks of 196 bytes, 8 of them kept for
// control traffic. One SSE subscriber stops reading while the application
// keeps publishing 400-byte events (three blocks each) to it: its window
// closes, its queue fills, and data takes every block it may. Meanwhile a
// second client's WebSocket handshake and ping, and a third's SSE
// handshake, are answered from the reserve. When the first reads again,
// its stream has every event it did not lose, in order, and a notice for
// each run it lost: nothing froze and nothing went missing unannounced.
TEST_F(PushListenerTest, InAFortyBlockPoolBulkDataNeverStarvesAnotherClientsHandshakeOrPing) {
  start({.block_count = 40, .block_size = 196, .reserve = 8, .prefault = false});
  std::unique_ptr<RawPeer> bulk = subscribe_sse("bulk");
  net.run_for(1000);
  bulk->set_reading(false);

  std::uint64_t published = 0;
  const auto publish_bulk = [&] {
    for (int i = 0; i < 4; ++i) (void)server->publish("bulk", event_data(++published, 380));
    server->flush();
  };
  // Saturated: the pool refuses data, the subscriber's queue is full, and
  // its window is shut.
  ASSERT_TRUE(net.run_until([&] {
    publish_bulk();
    return pool->stats().data_refusals > 0 && deepest_queue() >= 8;
  }, 20000));
  EXPECT_LE(pool->free_blocks(), pool->stats().reserve + 2);

  // A WebSocket handshake, then a ping, while publishing goes on.
  const std::uint32_t asked_at = LwipNet::now_ms();
  int steps = 0;
  std::unique_ptr<RawPeer> ctl = connect_and_send(ws_request("ctl"));
  ASSERT_TRUE(net.run_until([&] {
    publish_bulk();
    ++steps;
    return ctl->received().find("\r\n\r\n") != std::string::npos;
  }, 20000));
  const std::uint32_t handshake_ms = LwipNet::now_ms() - asked_at;
  const int handshake_steps = steps;
  EXPECT_GE(deepest_queue(), 8u) << "the bulk subscriber was no longer saturated";
  EXPECT_NE(ctl->received().find(kWsAccept), std::string::npos) << ctl->received();

  const std::uint32_t pinged_at = LwipNet::now_ms();
  steps = 0;
  ctl->send(masked(proto::ws::Opcode::ping, "are you there"));
  ASSERT_TRUE(net.run_until([&] {
    publish_bulk();
    ++steps;
    return !parse_ws(ctl->received()).pongs.empty();
  }, 20000));
  EXPECT_EQ(parse_ws(ctl->received()).pongs.front(), "are you there");
  const std::uint32_t pong_ms = LwipNet::now_ms() - pinged_at;
  const int pong_steps = steps;
  EXPECT_GE(deepest_queue(), 8u) << "the bulk subscriber was no longer saturated";

  std::unique_ptr<RawPeer> watcher = connect_and_send(sse_request("ctl"));
  ASSERT_TRUE(net.run_until([&] {
    publish_bulk();
    return watcher->received().size() >= kSseHead.size();
  }, 20000));
  EXPECT_EQ(watcher->received(), kSseHead);
  EXPECT_GT(pool->stats().data_refusals, 0u);  // still saturated all along
  EXPECT_EQ(pool->stats().control_refusals, 0u);
  std::printf("40 x 196 B pool, reserve 8, one subscriber saturated (%llu events published, %llu data refusals, "
              "min %lu blocks free): WebSocket handshake answered in %u ms of lwIP time (%d steps), ping answered "
              "in %u ms (%d steps)\n",
              static_cast<unsigned long long>(published),
              static_cast<unsigned long long>(pool->stats().data_refusals),
              static_cast<unsigned long>(pool->stats().min_free_blocks),
              static_cast<unsigned>(handshake_ms), handshake_steps, static_cast<unsigned>(pong_ms), pong_steps);

  // The bulk subscriber reads again: the rest of its stream arrives, and
  // the notices of what it lost.
  bulk->set_reading(true);
  const std::uint64_t last = published;
  const auto announced_in = [](const SseStream& got) {
    std::uint64_t announced = 0;
    for (const std::string& notice : got.notices) {
      EXPECT_EQ(notice.rfind("sluice-dropped {\"topic\":\"bulk\",\"dropped\":", 0), 0u) << notice;
      announced += std::stoull(notice.substr(notice.find("\"dropped\":") + 10));
    }
    return announced;
  };
  ASSERT_TRUE(net.run_until([&] {
    server->flush();
    const SseStream got = parse_sse(bulk->received());
    return got.ids.size() + announced_in(got) >= last;
  }, 20000));
  const SseStream got = parse_sse(bulk->received());
  for (std::size_t i = 1; i < got.ids.size(); ++i) ASSERT_LT(got.ids[i - 1], got.ids[i]);
  EXPECT_EQ(got.ids.size() + announced_in(got), last) << "every event arrived or was announced lost";
  EXPECT_GT(announced_in(got), 0u);
  EXPECT_GT(announced_in(got), 0u);
}

// Every slot taken: the next connection is refused with a reset at once,
// and those already served go on.
TEST_F(PushListenerTest, AConnectionPastTheLastSlotIsRefused) {
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false});
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < 4; ++i) peers.push_back(subscribe_sse("t"));
  std::unique_ptr<RawPeer> extra = RawPeer::connect(net);
  ASSERT_TRUE(net.run_until([&] { return extra->failed(); }));
  EXPECT_EQ(listener->refused(), 1u);
  EXPECT_EQ(server->publish("t", "still here").queued, 4u);
  server->flush();
  ASSERT_TRUE(net.run_until([&] { return parse_sse(peers[3]->received()).data.size() == 1; }));
}

// Answers a client gets instead of a stream, each ending its connection.
TEST_F(PushListenerTest, BadRequestsGetAStatusAndAClose) {
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false});
  const struct {
    std::string request;
    std::string status_line;
  } cases[] = {
      {"GET /other HTTP/1.1\r\nHost: d\r\n\r\n", "HTTP/1.1 404 Not Found\r\n"},
      {"POST /sse/t HTTP/1.1\r\nHost: d\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 Method Not Allowed\r\n"},
      {"GET /sse/no%20spaces HTTP/1.1\r\nHost: d\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"},
      {"GET /sse/t HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"},  // no Host
      {"GET /ws/t HTTP/1.1\r\nHost: d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
       "Sec-WebSocket-Key: " + std::string(kWsKey) + "\r\nSec-WebSocket-Version: 8\r\n\r\n",
       "HTTP/1.1 426 Upgrade Required\r\n"},
      {"GET /sse/t HTTP/1.1\r\nHost: d\r\nX-Pad: " + std::string(600, 'p') + "\r\n\r\n",
       "HTTP/1.1 431 Request Header Fields Too Large\r\n"},
  };
  for (const auto& c : cases) {
    std::unique_ptr<RawPeer> peer = connect_and_send(c.request);
    ASSERT_TRUE(net.run_until([&] { return peer->peer_closed(); })) << c.request;
    EXPECT_EQ(peer->received().rfind(c.status_line, 0), 0u) << peer->received();
  }
  EXPECT_EQ(server->connections(), 0u);
  EXPECT_EQ(pool->free_blocks(), pool->stats().block_count);
}

// A client that never finishes its request head is answered 408 and let
// go after the request deadline (ten polls of lwIP's timer).
TEST_F(PushListenerTest, ARequestThatNeverCompletesIsAnswered408) {
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false});
  std::unique_ptr<RawPeer> slow = connect_and_send("GET /sse/t HTTP/1.1\r\nHost: d\r\n");
  const std::uint32_t started = LwipNet::now_ms();
  ASSERT_TRUE(net.run_until([&] { return slow->peer_closed(); }));
  EXPECT_EQ(slow->received().rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << slow->received();
  EXPECT_GE(LwipNet::now_ms() - started, 10u * 1000u);
  EXPECT_EQ(server->connections(), 0u);
}

// What a WebSocket subscriber may send: pings (answered, those that come
// together with the latest one's pong), its close (answered, then the
// connection ends); a data message is refused.
TEST_F(PushListenerTest, AWebSocketSubscriberIsAnsweredAndClosedByTheRules) {
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false});
  std::unique_ptr<RawPeer> ws = subscribe_ws("t");
  ws->send(masked(proto::ws::Opcode::ping, "1") + masked(proto::ws::Opcode::ping, "2"));
  ASSERT_TRUE(net.run_until([&] { return !parse_ws(ws->received()).pongs.empty(); }));
  EXPECT_EQ(parse_ws(ws->received()).pongs, std::vector<std::string>{"2"});
  ws->send(masked(proto::ws::Opcode::ping, "3"));
  ASSERT_TRUE(net.run_until([&] { return parse_ws(ws->received()).pongs.size() == 2; }));
  EXPECT_EQ(server->publish("t", "event").queued, 1u);
  server->flush();
  const proto::ws::ClosePayload bye = [] {
    proto::ws::ClosePayload p;
    EXPECT_TRUE(proto::ws::make_close_payload(proto::ws::CloseCode::going_away, "", p));
    return p;
  }();
  ws->send(masked(proto::ws::Opcode::close, std::string_view(bye.bytes.data(), bye.size)));
  ASSERT_TRUE(net.run_until([&] { return ws->peer_closed(); }));
  const WsStream got = parse_ws(ws->received());
  EXPECT_EQ(got.messages, std::vector<std::string>{"event"});
  EXPECT_TRUE(got.closed);
  ASSERT_TRUE(net.run_until([&] { return server->connections() == 0; }));

  std::unique_ptr<RawPeer> talker = subscribe_ws("t");
  talker->send(masked(proto::ws::Opcode::text, "hello"));
  ASSERT_TRUE(net.run_until([&] { return talker->peer_closed(); }));
  EXPECT_TRUE(parse_ws(talker->received()).closed);
}

// A client that writes its request and its FIN in one segment is answered
// before the close. lwIP counts the FIN's byte as unread until it has
// called back with the FIN, just after the data; a close before then was
// a reset, and the answer was lost with it.
TEST_F(PushListenerTest, ARequestAndItsFinInOneSegmentAreAnsweredBeforeTheClose) {
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false});
  std::unique_ptr<RawPeer> lost = RawPeer::connect(net);
  ASSERT_TRUE(net.run_until([&] { return lost->connected(); }));
  lost->send_and_shut("GET /other HTTP/1.1\r\nHost: d\r\n\r\n");
  ASSERT_TRUE(net.run_until([&] { return lost->peer_closed() || lost->failed(); }));
  EXPECT_FALSE(lost->failed()) << "reset";
  EXPECT_EQ(lost->received().rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u) << lost->received();

  std::unique_ptr<RawPeer> brief = RawPeer::connect(net);
  ASSERT_TRUE(net.run_until([&] { return brief->connected(); }));
  brief->send_and_shut(ws_request("t") + masked(proto::ws::Opcode::close, std::string("\x03\xe8", 2)));
  ASSERT_TRUE(net.run_until([&] { return brief->peer_closed() || brief->failed(); }));
  EXPECT_FALSE(brief->failed()) << "reset";
  const WsStream got = parse_ws(brief->received());
  EXPECT_NE(got.head.find(kWsAccept), std::string::npos) << brief->received();
  EXPECT_TRUE(got.closed);
  ASSERT_TRUE(net.run_until([&] { return server->connections() == 0; }));
  EXPECT_EQ(pool->free_blocks(), pool->stats().block_count);
}

// An SSE client that sends more than its input buffer behind its request,
// then its FIN, is let go. The bytes the request's consume moved in came
// with no callback of their own: nothing read them, lwIP's later segments
// were refused for good, the FIN with them, and the slot was held.
TEST_F(PushListenerTest, AnSseSubscriberThatSendsMoreThanItsBufferThenItsFinIsLetGo) {
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false}, {}, {.heartbeat_polls = 0});
  std::unique_ptr<RawPeer> peer = connect_and_send(sse_request("t") + std::string(1400, 'j'));
  ASSERT_TRUE(net.run_until([&] { return peer->received().size() >= kSseHead.size(); }));
  peer->send(std::string(1400, 'k'));
  peer->close();
  net.run_for(5000);
  EXPECT_EQ(server->connections(), 0u);
  EXPECT_TRUE(slots[0].free());
}

// A fifo WebSocket subscriber cut off while its close frame waits behind
// a full send buffer sends a segment longer than its input buffer: what
// did not fit is still unread when the close frame has gone, and lwIP
// resets a connection closed with unread input (and frees its pcb, which
// the connection used to go on touching). Read and dropped, the close is
// the close frame, then a FIN.
TEST_F(PushListenerTest, ACutOffSubscriberThatSendsMoreThanItsBufferStillGetsItsCloseAndAFin) {
  start({.block_count = 256, .block_size = 256, .reserve = 8, .prefault = false}, {},
        {.policy = Policy::fifo});
  std::unique_ptr<RawPeer> peer = subscribe_ws("t");
  net.run_for(1000);
  peer->set_reading(false);
  ASSERT_TRUE(publish_until_cut_off("t"));
  ASSERT_EQ(slots[0].core().phase(), embedded::PushConnection::Phase::closing);
  peer->send(std::string(1400, 'j'));
  net.run_for(100);
  peer->set_reading(true);
  ASSERT_TRUE(net.run_until([&] {
    server->flush();
    return peer->peer_closed() || peer->failed();
  }, 20000));
  EXPECT_FALSE(peer->failed()) << "reset";
  EXPECT_TRUE(peer->peer_closed());
  EXPECT_TRUE(parse_ws(peer->received()).closed);
  ASSERT_TRUE(net.run_until([&] { return server->connections() == 0; }));
  EXPECT_EQ(pool->free_blocks(), pool->stats().block_count);
}

// A WebSocket subscriber cut off (fifo) that never reads again: its
// backlog is dropped at once, and once the close deadline
// (PushConfig::close_polls of lwIP's poll) has passed with its close frame
// still waiting for room, the connection is reset, its slot free and every
// block back. It held both for good.
TEST_F(PushListenerTest, ACutOffSubscriberThatNeverReadsIsResetAfterTheCloseDeadline) {
  start({.block_count = 256, .block_size = 256, .reserve = 8, .prefault = false}, {},
        {.policy = Policy::fifo, .heartbeat_polls = 0});
  std::unique_ptr<RawPeer> peer = subscribe_ws("t");
  net.run_for(1000);
  peer->set_reading(false);
  ASSERT_TRUE(publish_until_cut_off("t"));
  ASSERT_EQ(slots[0].core().phase(), embedded::PushConnection::Phase::closing);
  EXPECT_LE(slots[0].tcp()->out().data_frames(), 2u) << "only a frame already on the wire and the close frame";
  const std::uint32_t cut_at = LwipNet::now_ms();
  ASSERT_TRUE(net.run_until([&] { return peer->failed(); }, 200000));
  EXPECT_GE(LwipNet::now_ms() - cut_at, 10u * 1000u);
  EXPECT_EQ(server->connections(), 0u);
  EXPECT_TRUE(slots[0].free());
  EXPECT_EQ(pool->free_blocks(), pool->stats().block_count);
}

// A subscriber of two topics leaves and comes back over lwIP with
// Last-Event-ID: it gets what it missed from the history, then heartbeats
// on lwIP's poll timer while nothing is published. One from an id the
// history no longer reaches is told so first.
TEST_F(PushListenerTest, ASubscriberThatComesBackGetsWhatItMissedThenHeartbeats) {
  embedded::HistoryRecord history[4];
  start({.block_count = 64, .block_size = 256, .reserve = 8, .prefault = false}, {},
        {.heartbeat_polls = 2, .history = history});
  const std::string request = "GET /sse/a?topic=b HTTP/1.1\r\nHost: device\r\n";
  std::unique_ptr<RawPeer> first = connect_and_send(request + "\r\n");
  ASSERT_TRUE(net.run_until([&] { return first->received().size() >= kSseHead.size(); }));
  for (std::uint64_t n = 1; n <= 3; ++n) (void)server->publish(n % 2 == 1 ? "a" : "b", event_data(n));
  server->flush();
  ASSERT_TRUE(net.run_until([&] { return first->received().size() > kSseHead.size() && parse_sse(first->received()).ids.size() == 3; }));
  first->close();
  ASSERT_TRUE(net.run_until([&] { return server->connections() == 0; }));

  for (std::uint64_t n = 4; n <= 6; ++n) (void)server->publish(n % 2 == 1 ? "a" : "b", event_data(n));
  std::unique_ptr<RawPeer> back = connect_and_send(request + "Last-Event-ID: 3\r\n\r\n");
  ASSERT_TRUE(net.run_until([&] { return back->received().size() > kSseHead.size() && parse_sse(back->received()).ids.size() == 3; }));
  const SseStream missed = parse_sse(back->received());
  EXPECT_EQ(missed.ids, (std::vector<std::uint64_t>{4, 5, 6}));
  EXPECT_EQ(missed.data.back(), event_data(6));
  EXPECT_TRUE(missed.notices.empty());

  const std::size_t before = back->received().size();
  net.run_for(3000);  // lwIP polls every second: two idle polls make a heartbeat
  EXPECT_EQ(back->received().substr(before).rfind(":\n\n", 0), 0u) << back->received().substr(before);

  std::unique_ptr<RawPeer> late = connect_and_send(request + "Last-Event-ID: 1\r\n\r\n");
  ASSERT_TRUE(net.run_until([&] { return late->received().size() > kSseHead.size() && parse_sse(late->received()).ids.size() == 4; }));
  const SseStream told = parse_sse(late->received());
  ASSERT_EQ(told.notices.size(), 2u);
  EXPECT_EQ(told.notices[0], "sluice-reset {\"topic\":\"a\",\"reason\":\"too-old\",\"last_id\":\"1\"}");
  EXPECT_EQ(told.ids, (std::vector<std::uint64_t>{3, 4, 5, 6}));
}

}  // namespace
}  // namespace sluice::embedded::lwip
