#include "ws_frame_scanner.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "feed_all_splits.hpp"
#include "buf/string_sink.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::bench {
namespace {

namespace ws = proto::ws;

struct Collect final : WsFrameHandler {
  std::vector<std::string> seen;  // "text:..", "binary:<size>", "ping:..", "pong:..", "close:<code>:.."
  void on_message(bool text, std::string_view payload) override {
    seen.push_back(text ? "text:" + std::string(payload) : "binary:" + std::to_string(payload.size()));
  }
  void on_ping(std::string_view payload) override { seen.push_back("ping:" + std::string(payload)); }
  void on_pong(std::string_view payload) override { seen.push_back("pong:" + std::string(payload)); }
  void on_close(std::uint16_t code, std::string_view reason) override {
    seen.push_back("close:" + std::to_string(code) + ":" + std::string(reason));
  }
};

std::span<const char> bytes(std::string_view s) { return {s.data(), s.size()}; }

// What a server sends: unmasked frames from sluice's own encoder.
std::string server_frame(ws::Opcode op, bool fin, std::string_view payload) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(ws::encode_frame(op, fin, false, bytes(payload), sink));
  return out;
}

std::string stream() {
  std::string s;
  s += server_frame(ws::Opcode::text, true, "hello");
  s += server_frame(ws::Opcode::ping, true, "p1");
  s += server_frame(ws::Opcode::binary, true, std::string(300, 'b'));  // 16-bit length
  s += server_frame(ws::Opcode::text, false, "frag");
  s += server_frame(ws::Opcode::pong, true, "between");                // control inside a message
  s += server_frame(ws::Opcode::continuation, true, "ment");
  s += server_frame(ws::Opcode::text, true, "");
  std::string close;
  buf::StringSink sink(close);
  EXPECT_TRUE(ws::encode_close(ws::CloseCode::normal, "bye", sink));
  return s + close + "ignored after the close";
}

const std::vector<std::string> kExpected = {"text:hello", "ping:p1",      "binary:300",   "pong:between",
                                            "text:fragment", "text:", "close:1000:bye"};

TEST(WsFrameScanner, ReadsEveryFrameAtEverySplitPoint) {
  const std::string s = stream();
  test::for_each_split(s, [&](const test::Chunks& chunks) {
    WsFrameScanner scanner;
    Collect got;
    WsScanStatus status = WsScanStatus::ok;
    for (std::string_view chunk : chunks) status = scanner.feed(chunk, got);
    EXPECT_EQ(status, WsScanStatus::closed);
    ASSERT_EQ(got.seen, kExpected) << chunks.size() << " chunks, first " << chunks.front().size();
  });
}

TEST(WsFrameScanner, ReadsA64BitLengthCutAnywhereInItsHeader) {
  const std::string frame = server_frame(ws::Opcode::binary, true, std::string(70000, 'z'));
  for (std::size_t cut = 0; cut <= 12; ++cut) {
    WsFrameScanner scanner;
    Collect got;
    EXPECT_EQ(scanner.feed(std::string_view(frame).substr(0, cut), got), WsScanStatus::ok);
    EXPECT_EQ(scanner.feed(std::string_view(frame).substr(cut), got), WsScanStatus::ok);
    EXPECT_EQ(got.seen, std::vector<std::string>{"binary:70000"}) << cut;
  }
}

TEST(WsFrameScanner, AnEmptyCloseReports1005) {
  WsFrameScanner scanner;
  Collect got;
  EXPECT_EQ(scanner.feed(std::string("\x88\x00", 2), got), WsScanStatus::closed);
  EXPECT_EQ(got.seen, std::vector<std::string>{"close:1005:"});
}

TEST(WsFrameScanner, RefusesWhatAServerMustNotSend) {
  const std::string masked = std::string("\x81\x85", 2) + "abcd" + "hello";
  const std::vector<std::string> bad = {
      masked,
      std::string("\xC1\x01x", 3),                                            // RSV1 without deflate
      std::string("\x83\x01x", 3),                                            // opcode 3
      std::string("\x82\x7E\x00\x05", 4) + "12345",                          // 16-bit length for 5
      std::string("\x82\x7F\x00\x00\x00\x00\x00\x00\xFF\xFF", 10),            // 64-bit length for 65535
      std::string("\x09\x01p", 3),                                            // fragmented ping
      std::string("\x89\x7E\x00\x7E", 4) + std::string(126, 'p'),            // ping over 125
      std::string("\x80\x01x", 3),                                            // continuation outside a message
      std::string("\x01\x01x\x81\x01y", 6),                                   // new message inside one
      std::string("\x88\x01x", 3),                                            // close of one byte
  };
  for (const std::string& frame : bad) {
    WsFrameScanner scanner;
    Collect got;
    EXPECT_EQ(scanner.feed(frame, got), WsScanStatus::bad_frame) << testing::PrintToString(frame);
    EXPECT_EQ(scanner.feed(server_frame(ws::Opcode::text, true, "fine"), got), WsScanStatus::bad_frame) << "sticks";
    EXPECT_TRUE(got.seen.empty());
  }
}

TEST(WsFrameScanner, AMessagePastTheLimitFailsFromItsHeader) {
  WsFrameScanner scanner(100);
  Collect got;
  EXPECT_EQ(scanner.feed(server_frame(ws::Opcode::text, true, std::string(101, 'x')).substr(0, 4), got),
            WsScanStatus::too_large);
  WsFrameScanner fragments(100);
  const std::string two = server_frame(ws::Opcode::text, false, std::string(60, 'x')) +
                          server_frame(ws::Opcode::continuation, true, std::string(60, 'x'));
  EXPECT_EQ(fragments.feed(two, got), WsScanStatus::too_large);
  EXPECT_TRUE(got.seen.empty());
}

// The short path for small whole messages hands over the same frames as
// the full one, at every cut, around lengths 125 (7-bit) and 126 (16-bit).
TEST(WsFrameScanner, SmallMessagesAroundTheLengthFormsAtEverySplitPoint) {
  std::string s;
  std::vector<std::string> expected;
  for (const std::size_t size : {0u, 1u, 64u, 125u, 126u, 64u}) {
    s += server_frame(ws::Opcode::text, true, std::string(size, 'm'));
    expected.push_back("text:" + std::string(size, 'm'));
  }
  s += server_frame(ws::Opcode::binary, true, "bb");
  expected.emplace_back("binary:2");
  test::for_each_split(s, [&](const test::Chunks& chunks) {
    WsFrameScanner scanner;
    Collect got;
    for (std::string_view chunk : chunks) ASSERT_EQ(scanner.feed(chunk, got), WsScanStatus::ok);
    ASSERT_EQ(got.seen, expected) << chunks.size() << " chunks";
  }, 0);
}

}  // namespace
}  // namespace sluice::bench
