// The output of an H2Session, sans-IO: a client made of nghttp2's client
// API in memory, a scripted writer in place of a socket. Many streams'
// events leave in one write; a short write keeps the rest committed and
// byte-exact; the steady state allocates nothing.
#include "transport/h2_output.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "transport/h2_session.hpp"

namespace sluice::transport {
namespace {

// A writer that takes at most `per_call` bytes per writev, then -EAGAIN
// until allow() is called: a socket that fills up.
class ScriptedWriter final : public conn::Writer {
 public:
  long writev(const struct iovec* iov, int count) override {
    ++calls;
    std::size_t took = 0;
    for (int i = 0; i < count && took < room; ++i) {
      const std::size_t n = std::min(iov[i].iov_len, room - took);
      wire.append(static_cast<const char*>(iov[i].iov_base), n);
      took += n;
    }
    room -= took;
    return took == 0 ? -EAGAIN : static_cast<long>(took);
  }
  void allow(std::size_t bytes) { room = bytes; }

  std::string wire;
  std::size_t room = SIZE_MAX;
  int calls = 0;
};

// An HTTP/2 client in memory: what it sends is handed to the session by
// the test; what the session writes is fed back to it.
class MemoryClient {
 public:
  MemoryClient() {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        callbacks, [](nghttp2_session*, std::uint8_t, std::int32_t stream, const std::uint8_t* data,
                      std::size_t length, void* self) {
          static_cast<MemoryClient*>(self)->bodies[stream].append(reinterpret_cast<const char*>(data), length);
          return 0;
        });
    nghttp2_session_client_new(&session_, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    // A window large enough that flow control never holds a stream here.
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 30}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 1);
    nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, 1 << 30);
  }
  ~MemoryClient() { nghttp2_session_del(session_); }

  std::int32_t get(const std::string& path) {
    const std::string method = "GET", scheme = "http", authority = "x";
    const nghttp2_nv fields[] = {nv(":method", method), nv(":path", path), nv(":scheme", scheme),
                                 nv(":authority", authority)};
    return nghttp2_submit_request(session_, nullptr, fields, 4, nullptr, nullptr);
  }
  std::string outgoing() {
    std::string out;
    const std::uint8_t* data = nullptr;
    for (ssize_t n; (n = nghttp2_session_mem_send(session_, &data)) > 0;) {
      out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
    return out;
  }
  void feed(const std::string& bytes) {
    ASSERT_EQ(nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }

  std::map<std::int32_t, std::string> bodies;

 private:
  static nghttp2_nv nv(std::string_view name, const std::string& value) {
    return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
            NGHTTP2_NV_FLAG_NONE};
  }
  nghttp2_session* session_ = nullptr;
};

// Answers every GET with an open event stream.
class Streams final : public H2Handler {
 public:
  void on_request(const H2Request& request) override {
    session->respond(request.stream, 200, {}, true);
    ids.push_back(request.stream);
  }
  void on_data(std::int32_t, std::string_view) override {}
  void on_end(std::int32_t) override {}
  void on_close(std::int32_t stream, std::uint32_t) override { std::erase(ids, stream); }

  H2Session* session = nullptr;
  std::vector<std::int32_t> ids;
};

class H2OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handler.session = &session;
    for (int i = 0; i < kStreams; ++i) client.get("/sse/" + std::to_string(i));
    ASSERT_EQ(session.receive(client.outgoing(), H2Session::Clock::now()), H2Status::ok);
    ASSERT_EQ(handler.ids.size(), static_cast<std::size_t>(kStreams));
    settle();
  }

  // Flushes everything due into `writer`, and hands it to the client.
  void settle() {
    ScriptedWriter writer;
    ASSERT_EQ(session.flush(writer).status, conn::FlushStatus::drained);
    client.feed(writer.wire);
    ASSERT_EQ(session.receive(client.outgoing(), H2Session::Clock::now()), H2Status::ok);
  }

  void publish(const std::string& event) {
    for (const std::int32_t id : handler.ids) {
      ASSERT_EQ(session.queue(id)->push_data(buf::make_frame(pool, buf::Lane::data, event)), conn::EnqueueStatus::ok);
      session.wake(id);
    }
  }

  static constexpr int kStreams = 100;
  buf::Pool pool{{.block_count = 4096, .block_size = 256, .reserve = 8, .prefault = false}};
  Streams handler;
  H2Session session{handler, {}};
  MemoryClient client;
};

TEST_F(H2OutputTest, AnEventOnEveryStreamLeavesInOneWrite) {
  const std::string event = "data: " + std::string(56, 'x') + "\n\n";  // 64 bytes
  publish(event);
  ScriptedWriter writer;
  const conn::FlushResult result = session.flush(writer);
  EXPECT_EQ(result.status, conn::FlushStatus::drained);
  EXPECT_EQ(writer.calls, 1);
  EXPECT_EQ(writer.wire.size(), kStreams * (9 + event.size()));
  client.feed(writer.wire);
  for (const std::int32_t id : handler.ids) EXPECT_EQ(client.bodies[id], event) << id;
}

// The socket takes 1000 bytes and then nothing: what was gathered but not
// written is copied out of the streams' queues (their policies can no
// longer drop a byte a DATA frame has promised), and goes out first, byte
// for byte, when the socket has room again.
TEST_F(H2OutputTest, AShortWriteKeepsTheRestCommittedAndSendsItFirst) {
  std::vector<std::string> events;
  for (int e = 0; e < 3; ++e) events.push_back("data: event " + std::to_string(e) + std::string(40, '.') + "\n\n");
  ScriptedWriter writer;
  publish(events[0]);
  writer.allow(1000);
  EXPECT_EQ(session.flush(writer).status, conn::FlushStatus::blocked);
  EXPECT_GT(session.stats().pending_bytes, 0u);
  EXPECT_LE(session.stats().pending_bytes, detail::kRoundBytes);
  for (const std::int32_t id : handler.ids) EXPECT_EQ(session.queue(id)->data_bytes(), 0u) << id;
  EXPECT_TRUE(session.wants_write());

  publish(events[1]);
  publish(events[2]);
  for (int turn = 0; turn < 1000 && session.wants_write(); ++turn) {
    writer.allow(333);
    EXPECT_NE(session.flush(writer).status, conn::FlushStatus::error);
  }
  EXPECT_FALSE(session.wants_write());
  EXPECT_EQ(session.stats().pending_bytes, 0u);
  client.feed(writer.wire);
  for (const std::int32_t id : handler.ids) EXPECT_EQ(client.bodies[id], events[0] + events[1] + events[2]) << id;
}

TEST_F(H2OutputTest, TheSteadyStateAllocatesNothing) {
  const std::string event = "data: steady\n\n";
  ScriptedWriter writer;
  // Warm up: rings, nghttp2's buffers and the spare streams settle.
  for (int round = 0; round < 10; ++round) {
    publish(event);
    ASSERT_EQ(session.flush(writer).status, conn::FlushStatus::drained);
  }
  writer.wire.clear();
  writer.wire.reserve(1 << 20);
  const std::uint64_t library_before = session.stats().library_allocations;
  const std::uint64_t before = sluice::test::allocations();
  for (int round = 0; round < 100; ++round) {
    publish(event);
    ASSERT_EQ(session.flush(writer).status, conn::FlushStatus::drained);
  }
  EXPECT_EQ(sluice::test::allocations() - before, 0u);
  EXPECT_EQ(session.stats().library_allocations - library_before, 0u);
  EXPECT_EQ(writer.wire.size(), 100u * kStreams * (9 + event.size()));
}

}  // namespace
}  // namespace sluice::transport
