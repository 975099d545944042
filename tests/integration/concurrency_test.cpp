// Any thread may send and publish: concurrent senders never
// interleave frames, each sender's order holds, and subscribers on every
// loop get every event once, in order, while others come and go. These
// tests also run under ThreadSanitizer (make test).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "proto/ws_decoder.hpp"
#include "proto/ws_handshake.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

// A WebSocket client reduced to what these tests need: the handshake and
// whole text messages from the server, decoded by sluice's own codec in the
// client role.
class WsReader {
 public:
  WsReader(std::uint16_t port, std::string_view path)
      : client_(port), decoder_({.max_message_size = 1 << 20, .role = proto::ws::Role::client}) {
    char key[proto::ws::kKeySize + 1];
    EXPECT_TRUE(proto::ws::make_client_key(key));
    client_.send("GET " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + std::string(key) + "\r\n\r\n");
  }

  bool upgraded() {
    if (!client_.read_until_contains("\r\n\r\n")) return false;
    std::string& b = client_.buffer();
    const bool ok = b.rfind("HTTP/1.1 101 ", 0) == 0;
    b.erase(0, b.find("\r\n\r\n") + 4);
    return ok;
  }

  // Reads until `count` messages arrived in all.
  bool read_messages(std::size_t count, std::chrono::milliseconds limit = 30s) {
    return client_.read_until([&](const std::string&) { return decode(client_.buffer(), count); }, limit);
  }
  std::vector<std::string>& messages() { return messages_; }

 private:
  bool decode(std::string& bytes, std::size_t count) {
    std::size_t used = 0;
    while (used < bytes.size()) {
      const auto r = decoder_.feed(std::span<const char>(bytes.data() + used, bytes.size() - used));
      used += r.consumed;
      if (r.status == proto::ws::DecodeStatus::message) messages_.emplace_back(r.payload.data(), r.payload.size());
      if (r.status == proto::ws::DecodeStatus::need_more || r.status == proto::ws::DecodeStatus::error) break;
    }
    bytes.erase(0, used);
    return messages_.size() >= count;
  }

  TestClient client_;
  proto::ws::Decoder decoder_;
  std::vector<std::string> messages_;
};

TEST(Concurrency, HundredThreadsSendToOneWebSocketWithoutInterleaving) {
  constexpr int kThreads = 100;
  constexpr int kEach = 100;
  std::mutex mutex;
  std::condition_variable opened;
  server::ConnectionRef ref;
  server::Config config;
  config.connection.send = {.max_bytes = 16 << 20, .max_frames = 1 << 16, .max_control_frames = 16};
  RunningServer server(config, [&](server::Server& s) {
    s.on_open([&](server::ConnectionRef r, std::string_view) {
      const std::lock_guard lock(mutex);
      ref = r;
      opened.notify_all();
    });
  });
  WsReader reader(server.port(), "/ws/seed002");
  ASSERT_TRUE(reader.upgraded());
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(opened.wait_for(lock, 10s, [&] { return static_cast<bool>(ref); }));
  }
  std::atomic<int> busy_retries{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string text = std::to_string(t) + ":" + std::to_string(i) + ":" + std::string(40, 'p');
        for (int attempt = 0; ref.send_text(text) != server::SendStatus::ok && attempt < 1'000'000; ++attempt) {
          ++busy_retries;
          std::this_thread::yield();
        }
      }
    });
  }
  for (auto& s : senders) s.join();
  ASSERT_TRUE(reader.read_messages(kThreads * kEach));
  std::vector<int> next(kThreads, 0);
  for (const std::string& m : reader.messages()) {
    const int t = std::atoi(m.c_str());
    const int i = std::atoi(m.c_str() + m.find(':') + 1);
    ASSERT_EQ(m.size(), m.find(':', m.find(':') + 1) + 41) << "a frame was cut or mixed: " << m;
    ASSERT_EQ(i, next[t]) << "sender " << t << " out of order";
    ++next[t];
  }
  EXPECT_EQ(reader.messages().size(), static_cast<std::size_t>(kThreads * kEach));
  std::printf("concurrent senders: %d frames intact and in order per sender (%d busy retries)\n", kThreads * kEach,
              busy_retries.load());
}

TEST(Concurrency, PublishersOnManyThreadsReachSubscribersOnEveryLoop) {
  server::Config config;
  config.threads = 2;
  config.hub.history_events = 20000;
  config.hub.history_bytes = 16 << 20;
  RunningServer server(config);
  ASSERT_EQ(server.server().loops(), 2u);
  std::vector<std::unique_ptr<SseSubscriber>> stayers;
  for (int i = 0; i < 8; ++i) {  // SO_REUSEPORT spreads them over both loops
    stayers.push_back(std::make_unique<SseSubscriber>(server.port(), "/sse/stress"));
    ASSERT_TRUE(stayers.back()->opened());
  }
  constexpr int kPublishers = 4;
  constexpr int kEach = 1000;
  std::atomic<bool> publishing{true};
  std::vector<std::thread> publishers;
  for (int p = 0; p < kPublishers; ++p) {
    publishers.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i) {
        const std::string data = std::to_string(p) + ":" + std::to_string(i);
        while (server.server().publish("stress", data).status != server::PublishStatus::ok) std::this_thread::yield();
      }
    });
  }
  // Meanwhile others join and leave, on both protocols, and ping.
  std::thread churn([&] {
    for (int round = 0; round < 30 && publishing; ++round) {
      SseSubscriber passer(server.port(), "/sse/stress");
      WsReader ws(server.port(), "/ws/stress");
      if (passer.opened() && ws.upgraded()) passer.wait_for(1, 1s);
    }
  });
  for (auto& t : publishers) t.join();
  publishing = false;
  churn.join();
  for (auto& sub : stayers) {
    ASSERT_TRUE(sub->wait_for(kPublishers * kEach));
    std::vector<int> next(kPublishers, 0);
    std::uint64_t last_seq = 0;
    for (const auto& e : sub->events()) {
      const int p = std::atoi(e.data.c_str());
      ASSERT_EQ(std::atoi(e.data.c_str() + e.data.find(':') + 1), next[p]++) << "publisher " << p;
      ASSERT_EQ(seq_of(e.id), last_seq + 1);  // ids have no gap and no repeat
      last_seq = seq_of(e.id);
    }
  }
}

}  // namespace
}  // namespace sluice::test
