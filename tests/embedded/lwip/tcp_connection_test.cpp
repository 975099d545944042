#include "embedded/lwip/tcp_connection.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lwip_net.hpp"
#include "raw_peers.hpp"
#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "proto/http1.hpp"
#include "proto/sse.hpp"
#include "proto/sse_parser.hpp"

namespace sluice::embedded::lwip {
namespace {

using test::LwipNet;
using test::RawListener;
using test::RawPeer;

constexpr std::string_view kRequest = "GET /sse/ticks HTTP/1.1\r\nHost: device\r\nAccept: text/event-stream\r\n\r\n";
constexpr std::string_view kHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";

// The server's end: a TcpConnection that reads one HTTP request and
// answers it with the head of an SSE stream; the test then publishes.
class SseEndpoint final : public TcpConnection::Handler {
 public:
  SseEndpoint(tcp_pcb* pcb, const TcpConnectionLimits& limits, std::span<char> scratch)
      : connection(pcb, *this, limits, {input_memory_, held_memory_, scratch}) {}

  void on_input(TcpConnection& c) override {
    if (subscribed) return;
    const proto::http1::ParseResult result = parser_.parse(c.input());
    if (result.status != proto::http1::ParseStatus::complete) return;
    target = std::string(parser_.request().target);
    c.consume(result.consumed);
    subscribed = c.out().push_control(buf::make_frame(*pool, buf::Lane::control, kHead)) == conn::EnqueueStatus::ok;
    c.flush();
  }
  void on_closed(TcpConnection&, err_t why) override {
    closed = true;
    reason = why;
  }

  buf::Pool* pool = nullptr;
  TcpConnection connection;
  std::string target;
  bool subscribed = false;
  bool closed = false;
  err_t reason = ERR_OK;

 private:
  char input_memory_[512];
  AckHold::Slot held_memory_[64];
  proto::http1::RequestParser parser_;
};

std::string tick_event_data(std::uint64_t id, std::size_t pad = 40) {
  return "{\"tick\":" + std::to_string(id) + ",\"pad\":\"" + std::string(pad, 'x') + "\"}";
}

buf::FrameRef sse_frame(buf::Pool& pool, buf::Lane lane, std::uint64_t id, std::string_view data) {
  char id_text[24];
  const auto end = std::to_chars(id_text, id_text + sizeof id_text, id).ptr;
  buf::FrameBuilder builder(pool, lane);
  if (proto::sse::encode({.id = {id_text, end}, .data = data}, builder) != proto::sse::EncodeStatus::ok) return {};
  return builder.finish();
}

// The reader's side of the stream: events parsed from what it received.
struct Received final : proto::sse::Handler {
  void on_event(const proto::sse::ReceivedEvent& event) override {
    ids.push_back(std::string(event.id));
    data.push_back(std::string(event.data));
  }
  std::vector<std::string> ids;
  std::vector<std::string> data;
};

Received parse_stream(const std::string& bytes) {
  Received received;
  if (bytes.compare(0, kHead.size(), kHead) != 0) {
    ADD_FAILURE() << "no SSE head: " << bytes.substr(0, 80);
    return received;
  }
  proto::sse::Parser parser;
  EXPECT_EQ(parser.feed(std::string_view(bytes).substr(kHead.size()), received), proto::sse::ParseStatus::ok);
  return received;
}

class TcpConnectionTest : public testing::Test {
 protected:
  // Opens the stream: the reader connects and asks, the endpoint answers.
  void open(const TcpConnectionLimits& limits = {}) {
    listener = std::make_unique<RawListener>(net, [this, limits](tcp_pcb* pcb) {
      endpoint = std::make_unique<SseEndpoint>(pcb, limits, scratch);
      endpoint->pool = &pool;
      return ERR_OK;
    });
    ASSERT_TRUE(listener->ok());
    reader = RawPeer::connect(net);
    ASSERT_NE(reader, nullptr);
    ASSERT_TRUE(net.run_until([&] { return reader->connected(); }));
    reader->send(kRequest);
    ASSERT_TRUE(net.run_until([&] { return reader->received().size() >= kHead.size(); }));
    ASSERT_EQ(endpoint->target, "/sse/ticks");
    net.run_for(1000);  // the head acknowledged
  }

  bool publish(std::uint64_t id, std::size_t pad = 40) {
    return endpoint->connection.out().push_data(sse_frame(pool, buf::Lane::data, id, tick_event_data(id, pad))) ==
           conn::EnqueueStatus::ok;
  }

  std::size_t blocks_in_use() const { return pool.stats().block_count - pool.free_blocks(); }

  LwipNet net;
  buf::Pool pool{{.block_count = 8192, .block_size = 256, .reserve = 16}};
  char scratch[TCP_MSS];
  std::unique_ptr<RawListener> listener;
  std::unique_ptr<SseEndpoint> endpoint;
  std::unique_ptr<RawPeer> reader;
};

void expect_events_in_order(const Received& got, std::uint64_t count, std::size_t pad = 40) {
  ASSERT_EQ(got.ids.size(), count);
  for (std::size_t id = 1; id <= count; ++id) {
    ASSERT_EQ(got.ids[id - 1], std::to_string(id));
    ASSERT_EQ(got.data[id - 1], tick_event_data(id, pad));
  }
}

// 1,000 events, published ten at a time, one flush per ten (a loop tick).
TEST_F(TcpConnectionTest, AThousandSseEventsReachARawReaderInOrder) {
  open();
  const test::SegmentCount before = net.sent_by_server();
  std::uint64_t published = 0;
  ASSERT_TRUE(net.run_until([&] {
    if (published < 1000) {
      for (int i = 0; i < 10; ++i) EXPECT_TRUE(publish(++published));
      endpoint->connection.flush();
    }
    return parse_stream(reader->received()).ids.size() == 1000;
  }));
  expect_events_in_order(parse_stream(reader->received()), 1000);

  const std::uint64_t segments = net.sent_by_server().data_segments - before.data_segments;
  const TcpWriterStats& writes = endpoint->connection.writer_stats();
  std::printf("1000 events, 10 per flush: %llu segments (%.1f events per segment), %llu tcp_write calls\n",
              static_cast<unsigned long long>(segments), 1000.0 / static_cast<double>(segments),
              static_cast<unsigned long long>(writes.tcp_writes));
  RecordProperty("events_per_segment_10_per_flush", std::to_string(1000.0 / static_cast<double>(segments)));
  // Ten events of ~70 bytes fit one segment: a flush is one segment, not ten.
  EXPECT_LE(segments, 110u);
  EXPECT_LE(writes.tcp_writes, 110u);  // gathered: one tcp_write per flush, not per event
  EXPECT_EQ(writes.refused, 0u);
  EXPECT_EQ(blocks_in_use(), 0u);  // copied by lwIP: released at once
}

// The same 1,000 events queued at once: full segments.
TEST_F(TcpConnectionTest, ABurstGoesOutInFullSegments) {
  open();
  const test::SegmentCount before = net.sent_by_server();
  for (std::uint64_t id = 1; id <= 1000; ++id) ASSERT_TRUE(publish(id));
  endpoint->connection.flush();
  ASSERT_TRUE(net.run_until([&] { return parse_stream(reader->received()).ids.size() == 1000; }));
  expect_events_in_order(parse_stream(reader->received()), 1000);

  const std::uint64_t segments = net.sent_by_server().data_segments - before.data_segments;
  const std::uint64_t bytes = net.sent_by_server().data_bytes - before.data_bytes;
  std::printf("1000 events at once: %llu bytes in %llu segments (%.1f events per segment, %.0f bytes per segment)\n",
              static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(segments),
              1000.0 / static_cast<double>(segments), static_cast<double>(bytes) / static_cast<double>(segments));
  RecordProperty("events_per_segment_burst", std::to_string(1000.0 / static_cast<double>(segments)));
  // Every segment full but the last, and on a device whose send buffer is
  // a few segments (data kept out of its last bytes for control traffic),
  // but the last of each send buffer's worth.
  EXPECT_LE(segments, bytes / TCP_MSS + 2 + bytes / TCP_SND_BUF);
  EXPECT_EQ(endpoint->connection.writer_stats().refused, 0u);
}

TEST_F(TcpConnectionTest, AnEventLargerThanLwipsSendBufferIsCutAndResumed) {
  open();
  const std::size_t pad = 3 * TCP_SND_BUF;
  ASSERT_TRUE(publish(1, pad));
  ASSERT_TRUE(publish(2));
  endpoint->connection.flush();
  ASSERT_TRUE(net.run_until([&] { return parse_stream(reader->received()).ids.size() == 2; }));
  const Received got = parse_stream(reader->received());
  EXPECT_EQ(got.data[0], tick_event_data(1, pad));
  EXPECT_EQ(got.data[1], tick_event_data(2));
  EXPECT_EQ(endpoint->connection.writer_stats().refused, 0u);
}

// A reader that stops reading: its window closes, data piles up in the
// OutQueue. A control frame pushed then still gets into lwIP at once, and
// reaches the reader ahead of every data frame that had not started.
TEST_F(TcpConnectionTest, ControlTrafficIsNeverStarvedByData) {
  open();
  reader->set_reading(false);
  std::uint64_t published = 0;
  // Publish until the window and lwIP's share for data are full and the
  // queue holds the rest.
  ASSERT_TRUE(net.run_until([&] {
    for (int i = 0; i < 20; ++i) EXPECT_TRUE(publish(++published, 200));
    endpoint->connection.flush();
    return published >= 2000;
  }));
  net.run_for(2000);
  conn::OutQueue& out = endpoint->connection.out();
  ASSERT_GT(out.data_frames(), 100u);
  // The oldest frame still queued may be in flight, cut by the closed
  // window; every later one has not started.
  const std::uint64_t first_waiting = published - out.data_frames() + 2;

  ASSERT_EQ(out.push_control(sse_frame(pool, buf::Lane::control, 999999, "ping")), conn::EnqueueStatus::ok);
  endpoint->connection.flush();
  EXPECT_EQ(out.control_frames(), 0u);  // in lwIP, although data had filled its share

  reader->set_reading(true);
  ASSERT_TRUE(net.run_until([&] { return parse_stream(reader->received()).ids.size() == published + 1; }));
  const Received got = parse_stream(reader->received());
  std::size_t ping_at = 0;
  while (ping_at < got.ids.size() && got.ids[ping_at] != "999999") ++ping_at;
  ASSERT_LT(ping_at, got.ids.size());
  EXPECT_LT(ping_at, first_waiting) << "the ping came after data that had not started when it was pushed";
  EXPECT_EQ(endpoint->connection.writer_stats().refused, 0u);
}

TEST_F(TcpConnectionTest, WithCopyAFrameIsReleasedAsSoonAsLwipHasIt) {
  open();
  reader->set_reading(false);  // nothing is acknowledged beyond the window
  for (std::uint64_t id = 1; id <= 3; ++id) ASSERT_TRUE(publish(id));
  endpoint->connection.flush();
  EXPECT_EQ(endpoint->connection.out().data_frames(), 0u);
  EXPECT_EQ(blocks_in_use(), 0u);
  EXPECT_EQ(endpoint->connection.held_frames(), 0u);
}

TEST_F(TcpConnectionTest, WithoutCopyAFrameIsHeldUntilThePeerAcknowledgesIt) {
  TcpConnectionLimits limits;
  limits.writer.copy = false;
  open(limits);
  for (std::uint64_t id = 1; id <= 3; ++id) ASSERT_TRUE(publish(id));
  endpoint->connection.flush();
  EXPECT_EQ(endpoint->connection.out().data_frames(), 0u);  // all in lwIP
  EXPECT_EQ(endpoint->connection.held_frames(), 3u);       // none acknowledged yet
  EXPECT_EQ(blocks_in_use(), 3u);
  ASSERT_TRUE(net.run_until([&] { return endpoint->connection.held_frames() == 0; }));
  EXPECT_EQ(blocks_in_use(), 0u);
  expect_events_in_order(parse_stream(reader->received()), 3);
}

TEST_F(TcpConnectionTest, WithoutCopyTheHoldBoundsTheFramesInLwip) {
  TcpConnectionLimits limits;
  limits.writer.copy = false;
  limits.writer.max_unsent = TCP_SND_BUF;
  open(limits);
  for (std::uint64_t id = 1; id <= 200; ++id) ASSERT_TRUE(publish(id));
  endpoint->connection.flush();
  // lwIP takes what its send buffer and queue (TCP_SND_QUEUELEN pbufs)
  // hold; on the host's lwIP that is more than the endpoint's 64 slots,
  // which bound it there.
  const std::size_t held = endpoint->connection.held_frames();
  EXPECT_GT(held, 0u);
  EXPECT_LE(held, 64u);
  if constexpr (TCP_SND_QUEUELEN >= 2 * 64 && TCP_SND_BUF >= 200 * 64) {
    EXPECT_EQ(held, 64u);
  }
  EXPECT_EQ(endpoint->connection.out().data_frames(), 200u - held);
  // Each acknowledgement frees slots and drives the next flush.
  ASSERT_TRUE(net.run_until([&] { return parse_stream(reader->received()).ids.size() == 200; }));
  expect_events_in_order(parse_stream(reader->received()), 200);
  net.run_for(1000);  // the reader's last (delayed) ACK
  EXPECT_EQ(endpoint->connection.held_frames(), 0u);
  EXPECT_EQ(blocks_in_use(), 0u);
}

// Input larger than the 512-byte buffer: lwIP keeps what does not fit and
// the endpoint's consume() brings it in.
TEST_F(TcpConnectionTest, InputLargerThanTheBufferArrivesWhole) {
  struct Sink final : TcpConnection::Handler {
    void on_input(TcpConnection& c) override {
      while (!c.input().empty()) {
        bytes.append(c.input());
        c.consume(c.input().size());
      }
    }
    void on_closed(TcpConnection&, err_t) override {}
    std::string bytes;
  } sink;
  char input[512];
  std::unique_ptr<TcpConnection> connection;
  RawListener server(net, [&](tcp_pcb* pcb) {
    connection = std::make_unique<TcpConnection>(pcb, sink, TcpConnectionLimits{},
                                                 TcpConnectionMemory{input, {}, scratch});
    return ERR_OK;
  });
  std::unique_ptr<RawPeer> client = RawPeer::connect(net);
  ASSERT_TRUE(net.run_until([&] { return client->connected(); }));
  std::string sent;
  for (int i = 0; sent.size() < 100000; ++i) sent += "line " + std::to_string(i) + "\n";
  client->send(sent);
  ASSERT_TRUE(net.run_until([&] { return sink.bytes.size() == sent.size(); }));
  EXPECT_TRUE(sink.bytes == sent);
}

TEST_F(TcpConnectionTest, CloseSendsEverythingQueuedThenFin) {
  open();
  for (std::uint64_t id = 1; id <= 50; ++id) ASSERT_TRUE(publish(id));
  endpoint->connection.close();
  ASSERT_TRUE(net.run_until([&] { return reader->peer_closed(); }));
  expect_events_in_order(parse_stream(reader->received()), 50);
  EXPECT_TRUE(endpoint->closed);
  EXPECT_EQ(endpoint->reason, ERR_OK);
  EXPECT_TRUE(endpoint->connection.finished());
}

TEST_F(TcpConnectionTest, AResetReleasesEverythingAndSaysSo) {
  TcpConnectionLimits limits;
  limits.writer.copy = false;
  open(limits);
  reader->set_reading(false);
  for (std::uint64_t id = 1; id <= 500; ++id) ASSERT_TRUE(publish(id));
  endpoint->connection.flush();
  EXPECT_GT(blocks_in_use(), 0u);
  reader.reset();  // aborts: lwIP sends a RST
  ASSERT_TRUE(net.run_until([&] { return endpoint->closed; }));
  EXPECT_EQ(endpoint->reason, ERR_RST);
  EXPECT_TRUE(endpoint->connection.finished());
  EXPECT_EQ(blocks_in_use(), 0u);
}

}  // namespace
}  // namespace sluice::embedded::lwip
