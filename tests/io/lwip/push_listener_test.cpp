// The embedded push server on a real lwIP: SSE and WebSocket subscribers
// connect with lwIP's own TCP (raw peers on the client's interface), the
// server runs through PushListener's slots, and every byte crosses lwIP's
// TCP both ways inside the test process.
#include "io/lwip/push_listener.hpp"

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

namespace sluice::io::lwip {
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
  void start(const buf::PoolConfig& pool_config, const TcpConnectionLimits& limits = {}) {
    pool.emplace(pool_config);
    ASSERT_TRUE(pool->ok());
    server.emplace(*pool);
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
  for (std::uint64_t n = 1; n <= kEvents; ++n) {
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

}  // namespace
}  // namespace sluice::io::lwip
