// WsSubscriber against a fake server on 127.0.0.1: it must take the 101,
// count events and sequence gaps, answer a ping with a masked pong and a
// close with a masked close, and end as closed (not failed); and it must
// fail on a 101 with the wrong Sec-WebSocket-Accept.
#include "ws_subscriber.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "buf/string_sink.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_handshake.hpp"
#include "stamp.hpp"

namespace sluice::bench {
namespace {

namespace ws = proto::ws;

std::string frame(ws::Opcode op, std::string_view payload) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(ws::encode_frame(op, true, false, std::span<const char>(payload.data(), payload.size()), sink));
  return out;
}

struct FakeServer {
  int listener = io::listen_tcp({.host = "127.0.0.1", .port = 0}, {});
  std::vector<ws::DecodeStatus> heard;  // what the client sent back, decoded
  std::vector<std::string> heard_payloads;

  // Accepts one client, answers its upgrade (with `accept_key` appended to
  // the client's key, so "" is right), sends `frames`, then decodes what the
  // client sends until it closes.
  void serve(const std::string& frames, const std::string& accept_key = "") {
    pollfd p{listener, POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 5000), 1);
    const int fd = io::accept_nonblocking(listener);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(io::set_nonblocking(fd, false), 0);
    std::string in;
    char chunk[4096];
    ssize_t n = 0;
    while (in.find("\r\n\r\n") == std::string::npos && (n = ::recv(fd, chunk, sizeof chunk, 0)) > 0) {
      in.append(chunk, static_cast<std::size_t>(n));
    }
    char accept[ws::kAcceptSize + 1];
    ASSERT_TRUE(ws::compute_accept(std::string(header_value(in, "sec-websocket-key")) + accept_key, accept));
    EXPECT_TRUE(write_all(fd, std::string("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n") +
                                  "Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n" + frames));
    in.clear();
    while ((n = ::recv(fd, chunk, sizeof chunk, 0)) > 0) in.append(chunk, static_cast<std::size_t>(n));
    ws::Decoder decoder({.role = ws::Role::server});  // a client's frames must be masked
    std::span<const char> rest(in.data(), in.size());
    for (ws::DecodeResult r = decoder.feed(rest); r.status != ws::DecodeStatus::need_more; r = decoder.feed(rest)) {
      heard.push_back(r.status);
      heard_payloads.emplace_back(r.payload.data(), r.payload.size());
      rest = rest.subspan(r.consumed);
      if (r.status == ws::DecodeStatus::error || r.status == ws::DecodeStatus::close) break;
    }
    ::close(fd);
  }
};

// Runs the session's loop until it is done, 10 s at most.
void run_until_done(ReaderContext& context, const WsSubscriber& session) {
  for (const std::uint64_t deadline = now_ns() + 10 * kNsPerSec; !session.done() && now_ns() < deadline;) {
    context.loop.run_once(100);
  }
}

TEST(WsSubscriber, CountsEventsAndGapsAnswersPingAndClose) {
  FakeServer server;
  ASSERT_GE(server.listener, 0);
  std::string close;
  buf::StringSink sink(close);
  ASSERT_TRUE(ws::encode_close(ws::CloseCode::normal, "", sink));
  const std::string frames = frame(ws::Opcode::text, make_payload(64, 1, 0, 1)) +
                             frame(ws::Opcode::text, make_payload(64, 1, 0, 2)) +
                             frame(ws::Opcode::ping, "are you there") +
                             frame(ws::Opcode::text, make_payload(64, 1, 0, 5)) + close;
  std::thread thread([&] { server.serve(frames); });
  StreamCounters counters;
  ReaderContext context(counters);
  WsSubscriber session(context, {.server = {.host = "127.0.0.1", .port = io::local_port(server.listener)},
                              .path = "/ws/t", .proto = Proto::ws});
  ASSERT_TRUE(session.start());
  run_until_done(context, session);
  thread.join();
  ::close(server.listener);
  EXPECT_TRUE(session.done());
  EXPECT_EQ(session.error(), "server closed with 1000");
  EXPECT_EQ(counters.events.load(), 3u);
  EXPECT_EQ(counters.gaps.load(), 2u);
  EXPECT_EQ(counters.ready.load(), 1u);
  EXPECT_EQ(counters.closed.load(), 1u);
  EXPECT_EQ(counters.failed.load(), 0u);
  EXPECT_EQ(server.heard, (std::vector<ws::DecodeStatus>{ws::DecodeStatus::pong, ws::DecodeStatus::close}));
  ASSERT_FALSE(server.heard_payloads.empty());
  EXPECT_EQ(server.heard_payloads.front(), "are you there");
}

TEST(WsSubscriber, FailsOnAWrongAccept) {
  FakeServer server;
  ASSERT_GE(server.listener, 0);
  std::thread thread([&] { server.serve("", "x"); });
  StreamCounters counters;
  ReaderContext context(counters);
  WsSubscriber session(context, {.server = {.host = "127.0.0.1", .port = io::local_port(server.listener)},
                              .path = "/ws/t", .proto = Proto::ws});
  ASSERT_TRUE(session.start());
  run_until_done(context, session);
  thread.join();
  ::close(server.listener);
  EXPECT_EQ(session.error(), "wrong Sec-WebSocket-Accept");
  EXPECT_EQ(counters.failed.load(), 1u);
  EXPECT_EQ(counters.ready.load(), 0u);
}

}  // namespace
}  // namespace sluice::bench
