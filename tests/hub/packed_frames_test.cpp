#include "hub/packed_frames.hpp"

#include <gtest/gtest.h>

#include <string>

#include "buf/string_sink.hpp"

namespace sluice::hub {
namespace {

struct PackedFramesTest : testing::Test {
  static std::string bytes_of(const buf::FrameRef& frame) {
    std::string out(frame.size(), '\0');
    EXPECT_EQ(frame.copy_to(out.data(), out.size()), frame.size());
    return out;
  }

  static std::string encoded(const proto::sse::Event& event) {
    std::string out;
    buf::StringSink sink(out);
    EXPECT_EQ(proto::sse::encode(event, sink), proto::sse::EncodeStatus::ok);
    return out;
  }

  buf::Pool pool{{.block_count = 64, .block_size = 4096, .reserve = 4}};
  buf::SlabWriter slabs;
};

// Encoded once on the stack when it may pack, sized and encoded into its
// own blocks when it cannot, or when its line breaks make it outgrow the
// stack: the same record every way.
TEST_F(PackedFramesTest, AnSseRecordIsTheEncodersWhetherItPacksOrNot) {
  const std::string small = "{\"p\":101}";
  const std::string lines(400, '\n');  // 400 lines of "data: ": past what the stack holds
  const std::string large(3000, 'x');
  for (const std::string& data : {small, lines, large}) {
    const proto::sse::Event event{.id = "ep:7", .event = "tick", .data = data};
    const buf::FrameRef frame = make_sse_frame(pool, slabs, event);
    ASSERT_TRUE(frame) << data.size();
    EXPECT_EQ(bytes_of(frame), encoded(event)) << data.size();
    EXPECT_EQ(frame.first_block()->slab != nullptr, data == small) << data.size();
  }
}

TEST_F(PackedFramesTest, AnSseRecordWithABrokenFieldIsNoFrame) {
  EXPECT_FALSE(make_sse_frame(pool, slabs, {.id = "a\nb", .data = "x"}));
  EXPECT_FALSE(make_sse_frame(pool, slabs, {.event = std::string_view("e\0", 2), .data = "x"}));
}

TEST_F(PackedFramesTest, AWebSocketMessageWrittenInPlaceIsTheEncodersAndPacks) {
  const std::string data = "{\"p\":101}";
  const buf::FrameRef frame =
      make_ws_frame(pool, slabs, proto::ws::Opcode::text, {data.data(), data.size()}, nullptr);
  ASSERT_TRUE(frame);
  std::string expected;
  buf::StringSink sink(expected);
  ASSERT_TRUE(proto::ws::encode_frame(proto::ws::Opcode::text, true, false, {data.data(), data.size()}, sink));
  EXPECT_EQ(bytes_of(frame), expected);
  EXPECT_NE(frame.first_block()->slab, nullptr);
}

// Every length field, at and past the largest frame that packs, as text and
// deflated: the frame written in place is the one the encoder writes.
TEST_F(PackedFramesTest, WebSocketMessagesOfEverySizeAreTheEncodersPackedOrNot) {
  const std::size_t largest = buf::SlabWriter::max_packed(pool.block_size()) - 4;  // a 4-byte header
  proto::ws::Deflater deflater;
  for (const std::size_t size : {std::size_t{0}, std::size_t{125}, std::size_t{126}, largest, largest + 1,
                                 std::size_t{70000}}) {
    const std::string data(size, 'd');
    const std::span<const char> bytes(data.data(), data.size());
    const buf::FrameRef frame = make_ws_frame(pool, slabs, proto::ws::Opcode::binary, bytes, nullptr);
    ASSERT_TRUE(frame) << size;
    std::string expected;
    buf::StringSink sink(expected);
    ASSERT_TRUE(proto::ws::encode_frame(proto::ws::Opcode::binary, true, false, bytes, sink));
    EXPECT_EQ(bytes_of(frame), expected) << size;
    EXPECT_EQ(frame.first_block()->slab != nullptr, size <= largest) << size;
    const buf::FrameRef deflated = make_ws_frame(pool, slabs, proto::ws::Opcode::binary, bytes, &deflater);
    ASSERT_TRUE(deflated) << size;
    EXPECT_EQ(static_cast<unsigned char>(bytes_of(deflated)[0]), 0xC2) << size;  // FIN, RSV1, binary
  }
}

// Written in place when it packs, through a builder when it does not: one
// byte of name length, the name, the data, either way.
TEST_F(PackedFramesTest, APayloadIsItsNameLengthNameAndDataPackedOrNot) {
  const std::size_t largest = buf::SlabWriter::max_packed(pool.block_size());
  for (const std::size_t size : {std::size_t{0}, std::size_t{64}, largest - 5, largest - 4, std::size_t{9000}}) {
    const std::string data(size, 'd');
    const buf::FrameRef frame = make_payload_frame(pool, slabs, {data, "tick"});
    ASSERT_TRUE(frame) << size;
    EXPECT_EQ(bytes_of(frame), std::string("\x04tick") + data) << size;
    EXPECT_EQ(frame.first_block()->slab != nullptr, 5 + size <= largest) << size;
  }
  const buf::FrameRef unnamed = make_payload_frame(pool, slabs, {"x"});
  ASSERT_TRUE(unnamed);
  EXPECT_EQ(bytes_of(unnamed), std::string("\0x", 2));
}

TEST_F(PackedFramesTest, FramesThatFindNoRoomAreNoFrames) {
  buf::Pool spent({.block_count = 1, .block_size = 4096, .reserve = 1});  // all of it the control lane's
  const std::string data = "x";
  EXPECT_FALSE(make_ws_frame(spent, slabs, proto::ws::Opcode::text, {data.data(), data.size()}, nullptr));
  EXPECT_FALSE(make_sse_frame(spent, slabs, {.data = data}));
  EXPECT_FALSE(make_payload_frame(spent, slabs, {data}));
}

}  // namespace
}  // namespace sluice::hub
