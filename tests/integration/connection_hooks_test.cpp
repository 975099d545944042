// on_open, on_close, the connection's data and a ConnectionRef that learns
// its connection closed, through real sockets.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "eventually.hpp"
#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using server::ConnectionRef;
using server::SendStatus;
using ws::WsTestClient;

// What the hooks saw, read by the test thread.
struct Hooks {
  std::mutex mutex;
  ConnectionRef opened;
  std::atomic<int> opens{0};
  std::atomic<int> closes{0};
  std::string data_at_close;
  bool closed_at_close = false;

  void install(server::Server& s) {
    s.on_open([this](ConnectionRef ref, std::string_view path) {
      ref.set_user_data(std::make_shared<std::string>(path));
      const std::lock_guard lock(mutex);
      opened = ref;
      ++opens;
    });
    s.on_close([this](ConnectionRef ref) {
      const std::lock_guard lock(mutex);
      data_at_close = *static_cast<const std::string*>(ref.user_data().get());
      closed_at_close = ref.closed();
      ++closes;
    });
  }
  ConnectionRef ref() {
    const std::lock_guard lock(mutex);
    return opened;
  }
};

TEST(ConnectionHooks, OnCloseFollowsOnOpenAndTheRefLearnsItsConnectionClosed) {
  Hooks hooks;
  RunningServer server({}, [&](server::Server& s) { hooks.install(s); });
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws/chat"));
  ASSERT_TRUE(eventually([&] { return hooks.opens == 1; }));
  const ConnectionRef ref = hooks.ref();
  EXPECT_FALSE(ref.closed());
  EXPECT_NE(ref.id(), 0u);
  ASSERT_TRUE(ref.user_data());
  EXPECT_EQ(*static_cast<const std::string*>(ref.user_data().get()), "/ws/chat");
  ASSERT_EQ(ref.send_text("hello"), SendStatus::ok);
  const std::optional<ws::ServerFrame> hello = client.read_message();
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->payload, "hello");

  client.send({.opcode = ws::kClose, .payload = ws::close_payload(1000)});
  EXPECT_EQ(client.read_close(), 1000);
  ASSERT_TRUE(eventually([&] { return ref.closed(); }));
  ASSERT_TRUE(eventually([&] { return hooks.closes == 1; }));
  {
    const std::lock_guard lock(hooks.mutex);
    EXPECT_EQ(hooks.data_at_close, "/ws/chat");
    EXPECT_TRUE(hooks.closed_at_close);
  }
  EXPECT_EQ(ref.send_text("too late"), SendStatus::closed);
  // The data outlives the connection for as long as a ref holds it.
  EXPECT_EQ(*static_cast<const std::string*>(ref.user_data().get()), "/ws/chat");
}

TEST(ConnectionHooks, AConnectionThatNeverOpenedAWebSocketGetsNoOnClose) {
  Hooks hooks;
  RunningServer server({}, [&](server::Server& s) { hooks.install(s); });
  {
    SseSubscriber stream(server.port(), "/sse/news");
    ASSERT_TRUE(stream.opened());
    EXPECT_EQ(http_request(server.port(), "POST", "/pub/news", "x").status, 200);
  }
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws/chat"));  // a later WebSocket: its close is the only one
  client.reset();
  // Both streams closed, and the WebSocket's on_close has run (the stream
  // count falls before the hook is called).
  ASSERT_TRUE(eventually([&] { return server.server().stats().streams == 0 && hooks.closes >= 1; }));
  EXPECT_EQ(hooks.closes, 1);
  EXPECT_EQ(hooks.opens, 1);
}

TEST(ConnectionHooks, AWebSocketStillOpenWhenTheServerStopsGetsOnClose) {
  Hooks hooks;
  RunningServer server({}, [&](server::Server& s) { hooks.install(s); });
  WsTestClient client(server.port());
  ASSERT_TRUE(client.open("/ws/chat"));
  ASSERT_TRUE(eventually([&] { return hooks.opens == 1; }));
  // The client never answers the server's close: the server stops waiting
  // for it after linger_timeout_ms, and the application still hears of it.
  server.stop();
  EXPECT_EQ(hooks.closes, 1);
  EXPECT_TRUE(hooks.ref().closed());
}

TEST(ConnectionHooks, AnEmptyRefIsClosedAndSendsNothing) {
  const ConnectionRef empty;
  EXPECT_FALSE(empty);
  EXPECT_TRUE(empty.closed());
  EXPECT_EQ(empty.send_text("x"), SendStatus::invalid);
  EXPECT_FALSE(empty.user_data());
}

}  // namespace
}  // namespace sluice::test
