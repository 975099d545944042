// Once its buffers have grown, a client allocates nothing per event: the
// reader parses into reused buffers and swaps events through the inbox.
// Counted with the test binary's operator new (tests/support/alloc_counter),
// against a fake server so that only the client's threads allocate.
#include <gtest/gtest.h>

#include "alloc_counter.hpp"
#include "client_test_support.hpp"
#include "buf/sink.hpp"
#include "sluice/client/sse_client.hpp"
#include "sluice/client/ws_client.hpp"
#include "proto/ws_encoder.hpp"
#include "proto/ws_handshake.hpp"

namespace sluice::client::test {
namespace {

constexpr int kQueue = 64;
constexpr int kWarmUp = 2 * kQueue;  // every queue slot has held an event once
constexpr int kMeasured = 1000;

std::string sse_events(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i) out += "id: E:" + std::to_string(i) + "\ndata: " + std::string(40, 'd') + "\n\n";
  return out;
}

class Sink final : public buf::Sink {
 public:
  bool append(const char* data, std::size_t n) override {
    bytes.append(data, n);
    return true;
  }
  using buf::Sink::append;
  std::string bytes;
};

std::string ws_events(int first, int count) {
  Sink sink;
  for (int i = first; i < first + count; ++i) {
    const std::string json = R"({"op":"event","topic":"t","id":"E:)" + std::to_string(i) + R"(","data":")" +
                             std::string(40, 'd') + "\"}";
    EXPECT_TRUE(proto::ws::encode_frame(proto::ws::Opcode::text, true, false, {json.data(), json.size()}, sink));
  }
  return sink.bytes;
}

// Takes `count` events; returns how many arrived with the expected size.
template <class Client>
int take(Client& client, Event& event, int count) {
  int good = 0;
  for (int i = 0; i < count; ++i) {
    if (client.next(event, std::chrono::seconds(10)) == NextStatus::event && event.data.size() == 40) ++good;
  }
  return good;
}

// The batches (55 KB) fit the loopback socket buffers, so the fake server's
// blocking send returns while the queue pushes back on the reader.
// Latest: takes events until the one with id `last` (the slot of topic t
// always holds the newest); returns 1 when it came.
int take_until(SseClient& client, Event& event, std::string_view last) {
  for (int i = 0; i < kMeasured; ++i) {
    if (client.next(event, std::chrono::seconds(10)) != NextStatus::event) return 0;
    if (event.id == last) return 1;
  }
  return 0;
}

ClientOptions small_queue(Delivery delivery) {
  ClientOptions options;
  options.delivery = delivery;
  options.queue_events = kQueue;
  return options;
}

void expect_sse_steady_state(Delivery delivery) {
  FakeServer fake;
  SseClient client(small_queue(delivery));
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/t")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  const bool queue = delivery == Delivery::queue;
  Event event;
  // Two rounds: the application's first Event, empty, goes into the inbox
  // with its first next() and is grown by the push after that.
  peer->send(sse_head(1000) + sse_events(1, kWarmUp));
  ASSERT_EQ(queue ? take(client, event, kWarmUp) : take_until(client, event, "E:128"), queue ? kWarmUp : 1);
  peer->send(sse_events(kWarmUp + 1, kWarmUp));
  ASSERT_EQ(queue ? take(client, event, kWarmUp) : take_until(client, event, "E:256"), queue ? kWarmUp : 1);
  const std::string batch = sse_events(2 * kWarmUp + 1, kMeasured);
  const std::uint64_t before = sluice::test::allocations();
  peer->send(batch);
  const int good = queue ? take(client, event, kMeasured) : take_until(client, event, "E:1256");
  const std::uint64_t allocated = sluice::test::allocations() - before;
  EXPECT_EQ(good, queue ? kMeasured : 1);
  EXPECT_EQ(allocated, 0u);
}

TEST(SteadyState, SseQueueAllocatesNothingPerEvent) { expect_sse_steady_state(Delivery::queue); }

TEST(SteadyState, SseLatestAllocatesNothingPerEvent) { expect_sse_steady_state(Delivery::latest); }

TEST(SteadyState, WebSocketJsonAllocatesNothingPerEvent) {
  FakeServer fake;
  WsClient client(small_queue(Delivery::queue));
  (void)client.subscribe("t");  // events of a topic not followed are not handed over
  ASSERT_EQ(client.start(ws_url(fake.port(), "/ws")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_TRUE(peer && peer->read_until("\r\n\r\n"));
  const std::string& request = peer->buffer();
  const auto at = request.find("Sec-WebSocket-Key: ") + 19;
  char accept[proto::ws::kAcceptSize + 1];
  ASSERT_TRUE(proto::ws::compute_accept(request.substr(at, request.find("\r\n", at) - at), accept));
  const std::size_t head_bytes = request.size();
  peer->send(std::string("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n") +
             "Sec-WebSocket-Accept: " + accept + "\r\n\r\n");
  ASSERT_TRUE(peer->read_at_least(head_bytes + 1));  // the subscribe: the topic is followed from here
  peer->send(ws_events(1, kWarmUp));
  Event event;
  ASSERT_EQ(take(client, event, kWarmUp), kWarmUp);
  const std::string batch = ws_events(kWarmUp + 1, kMeasured);
  const std::uint64_t before = sluice::test::allocations();
  peer->send(batch);
  const int good = take(client, event, kMeasured);
  const std::uint64_t allocated = sluice::test::allocations() - before;
  EXPECT_EQ(good, kMeasured);
  EXPECT_EQ(allocated, 0u);
}

}  // namespace
}  // namespace sluice::client::test
