#include "proto/ws_encoder.hpp"

#include <gtest/gtest.h>

#include "collecting_sink.hpp"

#include <string>

namespace sluice::proto::ws {
namespace {

using namespace std::string_view_literals;

using StringSink = test::CollectingSink;

std::span<const char> span_of(std::string_view s) { return {s.data(), s.size()}; }

std::string frame_bytes(const buf::FrameRef& frame) {
  std::string out(frame.size(), '\0');
  EXPECT_EQ(frame.copy_to(out.data(), out.size()), frame.size());
  return out;
}

constexpr MaskKey kRfcMask = {0x37, 0xfa, 0x21, 0x3d};

// RFC 6455 §5.7.
TEST(WsEncoder, UnmaskedTextHello) {
  StringSink out;
  ASSERT_TRUE(encode_frame(Opcode::text, true, false, span_of("Hello"), out));
  EXPECT_EQ(out.bytes, "\x81\x05Hello");
}

TEST(WsEncoder, MaskedTextHello) {
  StringSink out;
  ASSERT_TRUE(encode_masked_frame(Opcode::text, true, false, span_of("Hello"), kRfcMask, out));
  EXPECT_EQ(out.bytes, "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58");
}

TEST(WsEncoder, FragmentedHello) {
  StringSink out;
  ASSERT_TRUE(encode_frame(Opcode::text, false, false, span_of("Hel"), out));
  ASSERT_TRUE(encode_frame(Opcode::continuation, true, false, span_of("lo"), out));
  EXPECT_EQ(out.bytes, "\x01\x03Hel\x80\x02lo");
}

TEST(WsEncoder, UnmaskedPingAndMaskedPong) {
  StringSink ping;
  ASSERT_TRUE(encode_ping(span_of("Hello"), ping));
  EXPECT_EQ(ping.bytes, "\x89\x05Hello");
  StringSink pong;
  ASSERT_TRUE(encode_masked_frame(Opcode::pong, true, false, span_of("Hello"), kRfcMask, pong));
  EXPECT_EQ(pong.bytes, "\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58");
}

TEST(WsEncoder, SixteenAndSixtyFourBitLengths) {
  const std::string small(256, 'x');
  StringSink a;
  ASSERT_TRUE(encode_frame(Opcode::binary, true, false, span_of(small), a));
  EXPECT_EQ(a.bytes.substr(0, 4), std::string("\x82\x7E\x01\x00", 4));
  EXPECT_EQ(a.bytes.size(), 4 + small.size());

  const std::string big(65536, 'y');
  StringSink b;
  ASSERT_TRUE(encode_frame(Opcode::binary, true, false, span_of(big), b));
  EXPECT_EQ(b.bytes.substr(0, 10), std::string("\x82\x7F\x00\x00\x00\x00\x00\x01\x00\x00", 10));
  EXPECT_EQ(b.bytes.substr(10), big);
}

// A kept event's data is read back out of its WebSocket message by size.
TEST(WsEncoder, AnUnmaskedFramesPayloadSizeIsItsSizeLessItsHeader) {
  for (std::size_t n : {0u, 1u, 124u, 125u, 126u, 127u, 65534u, 65535u, 65536u, 65537u, 1u << 20}) {
    EXPECT_EQ(unmasked_payload_size(frame_header_size(n, false) + n), n) << n;
  }
}

TEST(WsEncoder, HeaderSizeFollowsTheLengthBoundaries) {
  EXPECT_EQ(frame_header_size(0, false), 2u);
  EXPECT_EQ(frame_header_size(125, false), 2u);
  EXPECT_EQ(frame_header_size(126, false), 4u);
  EXPECT_EQ(frame_header_size(65535, false), 4u);
  EXPECT_EQ(frame_header_size(65536, false), 10u);
  EXPECT_EQ(frame_header_size(65536, true), 14u);
  for (std::size_t n : {0u, 125u, 126u, 65535u, 65536u}) {
    StringSink out;
    ASSERT_TRUE(encode_masked_frame(Opcode::binary, true, false, span_of(std::string(n, 'z')), kRfcMask, out));
    EXPECT_EQ(out.bytes.size(), frame_header_size(n, true) + n) << n;
  }
}

TEST(WsEncoder, MaskMatchesByteWiseXorAtAnyOffsetAndLength) {
  const MaskKey key = {0x01, 0x80, 0xff, 0x5a};
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t len = 0; len < 40; ++len) {
      std::string data(len, '\0');
      for (std::size_t i = 0; i < len; ++i) data[i] = static_cast<char>(i * 7 + 3);
      std::string expected = data;
      for (std::size_t i = 0; i < len; ++i) expected[i] = static_cast<char>(expected[i] ^ key[(offset + i) % 4]);
      apply_mask(std::span<char>(data.data(), data.size()), key, offset);
      ASSERT_EQ(data, expected) << offset << " " << len;
    }
  }
}

TEST(WsEncoder, RefusesInvalidControlFramesAndWritesNothing) {
  StringSink out;
  const std::string long_payload(126, 'p');
  EXPECT_FALSE(encode_ping(span_of(long_payload), out));
  EXPECT_FALSE(encode_frame(Opcode::pong, false, false, span_of("x"), out));
  EXPECT_FALSE(encode_frame(Opcode::close, true, true, span_of(""), out));
  EXPECT_FALSE(encode_frame(static_cast<Opcode>(0x3), true, false, span_of("x"), out));
  EXPECT_FALSE(encode_frame(static_cast<Opcode>(0xB), true, false, span_of("x"), out));
  EXPECT_TRUE(out.bytes.empty());
  EXPECT_TRUE(encode_pong(span_of(std::string(125, 'p')), out));
}

TEST(WsEncoder, AFrameWrittenInPlaceIsTheFrameASinkGets) {
  for (const std::size_t size : {0UL, 1UL, 125UL, 126UL, 65535UL, 65536UL}) {
    const std::string payload(size, 'p');
    StringSink sunk;
    ASSERT_TRUE(encode_frame(Opcode::binary, true, true, span_of(payload), sunk));
    std::string in_place(frame_header_size(size, false) + size, '\0');
    ASSERT_TRUE(write_frame(in_place.data(), Opcode::binary, true, true, span_of(payload)));
    EXPECT_EQ(in_place, sunk.bytes) << size;
  }
}

TEST(WsEncoder, AFrameRefusedInPlaceWritesNothing) {
  std::string out(200, '.');
  EXPECT_FALSE(write_frame(out.data(), Opcode::ping, true, false, span_of(std::string(126, 'p'))));
  EXPECT_FALSE(write_frame(out.data(), Opcode::pong, false, false, span_of("x")));
  EXPECT_FALSE(write_frame(out.data(), static_cast<Opcode>(0x3), true, false, span_of("x")));
  EXPECT_EQ(out, std::string(200, '.'));
}

TEST(WsEncoder, CloseCarriesCodeAndReason) {
  StringSink out;
  ASSERT_TRUE(encode_close(CloseCode::going_away, "bye", out));
  EXPECT_EQ(out.bytes, std::string("\x88\x05\x03\xe9" "bye", 7));

  StringSink empty;
  ASSERT_TRUE(encode_close(CloseCode::no_status, "", empty));
  EXPECT_EQ(empty.bytes, std::string("\x88\x00", 2));

  StringSink app;
  ASSERT_TRUE(encode_close(static_cast<CloseCode>(4000), "", app));
  EXPECT_EQ(app.bytes, std::string("\x88\x02\x0f\xa0", 4));
}

TEST(WsEncoder, CloseRefusesUnsendableCodesAndReasons) {
  StringSink out;
  EXPECT_FALSE(encode_close(CloseCode::abnormal, "", out));
  EXPECT_FALSE(encode_close(static_cast<CloseCode>(1004), "", out));
  EXPECT_FALSE(encode_close(static_cast<CloseCode>(5000), "", out));
  EXPECT_FALSE(encode_close(CloseCode::no_status, "reason without a code", out));
  EXPECT_FALSE(encode_close(CloseCode::normal, std::string(kMaxCloseReason + 1, 'r'), out));
  EXPECT_FALSE(encode_close(CloseCode::normal, "\xC0\x80", out));
  EXPECT_TRUE(out.bytes.empty());
  EXPECT_TRUE(encode_close(CloseCode::normal, std::string(kMaxCloseReason, 'r'), out));
  EXPECT_EQ(out.bytes.size(), 2 + kMaxControlPayload);
}

TEST(WsEncoder, MessageFrameIsBuiltOnceAndShared) {
  buf::Pool pool({.block_count = 8, .block_size = 64, .reserve = 2});
  const std::string payload(100, 'e');
  buf::FrameRef frame = make_message_frame(pool, buf::Lane::data, Opcode::text, span_of(payload));
  ASSERT_TRUE(frame);
  StringSink expected;
  ASSERT_TRUE(encode_frame(Opcode::text, true, false, span_of(payload), expected));
  EXPECT_EQ(frame_bytes(frame), expected.bytes);
  buf::FrameRef subscriber = frame;
  EXPECT_EQ(frame.use_count(), 2u);
  EXPECT_FALSE(make_message_frame(pool, buf::Lane::data, Opcode::ping, span_of("x")));
}

TEST(WsEncoder, MessageFrameIsEmptyWhenThePoolIsSpent) {
  buf::Pool pool({.block_count = 3, .block_size = 64, .reserve = 1});
  EXPECT_FALSE(make_message_frame(pool, buf::Lane::data, Opcode::binary, span_of(std::string(200, 'b'))));
  EXPECT_EQ(pool.free_blocks(), 3u);
}

TEST(WsEncoder, ControlFramesUseTheReserve) {
  buf::Pool pool({.block_count = 3, .block_size = 64, .reserve = 2});
  buf::FrameRef event = make_message_frame(pool, buf::Lane::data, Opcode::text, span_of("x"));
  ASSERT_TRUE(event);
  EXPECT_FALSE(make_message_frame(pool, buf::Lane::data, Opcode::text, span_of("x")));
  buf::FrameRef close = make_close_frame(pool, CloseCode::message_too_big, "");
  ASSERT_TRUE(close);
  EXPECT_EQ(frame_bytes(close), std::string("\x88\x02\x03\xf1", 4));
  buf::FrameRef pong = make_pong_frame(pool, span_of("hb"));
  ASSERT_TRUE(pong);
  EXPECT_EQ(frame_bytes(pong), "\x8a\x02hb");
  EXPECT_FALSE(make_ping_frame(pool, span_of("no block left")));
}

// Padding is whole pongs of the largest payload, up to a pong more than
// asked, from the control reserve; a pool without room gives none.
TEST(WsEncoder, PongPaddingIsWholePongsOfTheLargestPayload) {
  constexpr std::size_t kPong = 2 + kMaxControlPayload;
  const std::string pong = "\x8a\x7d" + std::string(kMaxControlPayload, ' ');
  buf::Pool pool({.block_count = 64, .block_size = 64, .reserve = 40});
  for (const std::size_t bytes : {std::size_t{1}, kPong, kPong + 1, std::size_t{1000}}) {
    const buf::FrameRef frame = make_pong_padding_frame(pool, bytes);
    ASSERT_TRUE(frame) << bytes;
    const std::string text = frame_bytes(frame);
    EXPECT_GE(text.size(), bytes);
    EXPECT_LT(text.size(), bytes + kPong);
    ASSERT_EQ(text.size() % kPong, 0u);
    for (std::size_t at = 0; at < text.size(); at += kPong) EXPECT_EQ(text.substr(at, kPong), pong) << at;
  }
  buf::Pool dry({.block_count = 4, .block_size = 64, .reserve = 3});
  EXPECT_FALSE(make_pong_padding_frame(dry, 1000));
  EXPECT_EQ(dry.free_blocks(), 4u);
}

TEST(WsEncoder, DeflatedFrameMatchesRfc7692Example) {
  buf::Pool pool({.block_count = 4, .block_size = 64, .reserve = 0});
  Deflater deflater;
  ASSERT_TRUE(deflater.ok());
  buf::FrameRef frame = make_deflated_frame(pool, buf::Lane::data, deflater, Opcode::text, span_of("Hello"));
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame_bytes(frame), "\xc1\x07\xf2\x48\xcd\xc9\xc9\x07\x00"sv);
}

TEST(WsEncoder, MaskKeysComeFromTheCsprng) {
  MaskKey keys[4];
  for (MaskKey& key : keys) ASSERT_TRUE(make_mask_key(key));
  EXPECT_FALSE(keys[0] == keys[1] && keys[1] == keys[2] && keys[2] == keys[3]);
}

}  // namespace
}  // namespace sluice::proto::ws
