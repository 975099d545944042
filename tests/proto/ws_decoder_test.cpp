#include "proto/ws_decoder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "support/feed_all_splits.hpp"

namespace sluice::proto::ws {
namespace {

using namespace std::string_view_literals;

struct Event {
  DecodeStatus status = DecodeStatus::need_more;
  Opcode opcode = Opcode::continuation;
  std::string payload;
  std::uint16_t code = 1005;
  bool operator==(const Event&) const = default;
};

void PrintTo(const Event& e, std::ostream* os) {
  *os << "{status " << static_cast<int>(e.status) << ", opcode " << static_cast<int>(e.opcode) << ", code "
      << e.code << ", payload " << testing::PrintToString(e.payload) << "}";
}

Event message(Opcode op, std::string payload) { return {DecodeStatus::message, op, std::move(payload)}; }
Event ping(std::string payload) { return {DecodeStatus::ping, Opcode::continuation, std::move(payload)}; }
Event pong(std::string payload) { return {DecodeStatus::pong, Opcode::continuation, std::move(payload)}; }
Event close(std::uint16_t code, std::string reason) {
  return {DecodeStatus::close, Opcode::continuation, std::move(reason), code};
}
Event error(std::uint16_t code) { return {DecodeStatus::error, Opcode::continuation, "", code}; }

Event to_event(const DecodeResult& r) {
  Event e{r.status, r.opcode, std::string(r.payload.data(), r.payload.size()), to_wire(r.close_code)};
  if (r.status == DecodeStatus::error) {
    EXPECT_NE(r.error, nullptr);
    EXPECT_TRUE(r.payload.empty());
  }
  return e;
}

// Feeds every chunk, collecting events, and stops at the first error.
std::vector<Event> run(Decoder& decoder, const test::Chunks& chunks) {
  std::vector<Event> events;
  for (std::string_view chunk : chunks) {
    std::span<const char> in(chunk.data(), chunk.size());
    for (;;) {
      const DecodeResult r = decoder.feed(in);
      EXPECT_LE(r.consumed, in.size());
      in = in.subspan(r.consumed);
      if (r.status == DecodeStatus::need_more) {
        EXPECT_TRUE(in.empty());
        break;
      }
      events.push_back(to_event(r));
      if (r.status == DecodeStatus::error) return events;
    }
  }
  return events;
}

std::vector<Event> run(Decoder& decoder, std::string_view input) { return run(decoder, test::Chunks{input}); }

constexpr std::uint8_t kTestMask[4] = {0x37, 0xfa, 0x21, 0x3d};

// Writes a frame byte by byte, independently of the encoder, so tests can
// set any bit, including illegal ones.
std::string raw_frame(std::uint8_t b0, std::string_view payload, bool masked) {
  std::string out(1, static_cast<char>(b0));
  const std::uint8_t mask_bit = masked ? 0x80 : 0;
  const std::uint64_t n = payload.size();
  if (n < 126) {
    out += static_cast<char>(mask_bit | n);
  } else {
    const int bytes = n <= 0xFFFF ? 2 : 8;
    out += static_cast<char>(mask_bit | (bytes == 2 ? 126 : 127));
    for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((n >> (8 * i)) & 0xFF);
  }
  if (!masked) return out + std::string(payload);
  for (std::uint8_t k : kTestMask) out += static_cast<char>(k);
  for (std::size_t i = 0; i < payload.size(); ++i) out += static_cast<char>(payload[i] ^ kTestMask[i % 4]);
  return out;
}

std::string masked(std::uint8_t b0, std::string_view payload) { return raw_frame(b0, payload, true); }
std::string unmasked(std::uint8_t b0, std::string_view payload) { return raw_frame(b0, payload, false); }

std::string close_payload(std::uint16_t code, std::string_view reason = "") {
  std::string out = {static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
  return out + std::string(reason);
}

DeflateParams deflate_params(bool client_no_context_takeover = false) {
  DeflateParams p;
  p.enabled = true;
  p.server_no_context_takeover = true;
  p.client_no_context_takeover = client_no_context_takeover;
  return p;
}

std::string deflate(std::string_view text) {
  Deflater deflater;
  const DeflateOutput out = deflater.compress({text.data(), text.size()});
  EXPECT_TRUE(out.ok);
  return std::string(out.bytes.data(), out.bytes.size());
}

constexpr DecoderLimits kClient{.max_message_size = std::size_t{1} << 20, .role = Role::client};

void expect_every_split(std::string_view input, const std::vector<Event>& expected, DecoderLimits limits = {},
                        const DeflateParams* deflate_with = nullptr) {
  test::for_each_split(input, [&](const test::Chunks& chunks) {
    Decoder decoder(limits);
    if (deflate_with != nullptr) {
      ASSERT_TRUE(decoder.set_deflate(*deflate_with));
    }
    ASSERT_EQ(run(decoder, chunks), expected) << chunks.size() << " chunks";
  });
}

// ---- RFC 6455 §5.7 examples ----------------------------------------------

TEST(WsDecoder, UnmaskedTextHelloFromAServer) {
  expect_every_split("\x81\x05Hello", {message(Opcode::text, "Hello")}, kClient);
}

TEST(WsDecoder, MaskedTextHelloFromAClient) {
  expect_every_split("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", {message(Opcode::text, "Hello")});
}

TEST(WsDecoder, FragmentedHello) {
  expect_every_split("\x01\x03Hel\x80\x02lo", {message(Opcode::text, "Hello")}, kClient);
  expect_every_split(masked(0x01, "Hel") + masked(0x80, "lo"), {message(Opcode::text, "Hello")});
}

TEST(WsDecoder, UnmaskedPingAndMaskedPong) {
  expect_every_split("\x89\x05Hello", {ping("Hello")}, kClient);
  expect_every_split("\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", {pong("Hello")});
}

TEST(WsDecoder, SixteenBitLength) {
  std::string payload(256, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i);
  const std::string frame = std::string("\x82\x7E\x01\x00"sv) + payload;
  expect_every_split(frame, {message(Opcode::binary, payload)}, kClient);
  expect_every_split(masked(0x82, payload), {message(Opcode::binary, payload)});
}

TEST(WsDecoder, SixtyFourBitLengthWholeSplitAndByteByByte) {
  std::string payload(65536, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 31);
  const std::string frame = std::string("\x82\x7F\x00\x00\x00\x00\x00\x01\x00\x00"sv) + payload;
  const std::vector<Event> expected = {message(Opcode::binary, payload)};
  for (std::size_t cut : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{10}, std::size_t{11},
                          std::size_t{4096}, frame.size() - 1}) {
    Decoder decoder(kClient);
    EXPECT_EQ(run(decoder, test::Chunks{std::string_view(frame).substr(0, cut), std::string_view(frame).substr(cut)}),
              expected)
        << cut;
  }
  test::Chunks bytes;
  for (std::size_t i = 0; i < frame.size(); ++i) bytes.push_back(std::string_view(frame).substr(i, 1));
  Decoder byte_by_byte(kClient);
  EXPECT_EQ(run(byte_by_byte, bytes), expected);
  Decoder server;
  EXPECT_EQ(run(server, masked(0x82, payload)), expected);
}

// ---- Message assembly ------------------------------------------------------

TEST(WsDecoder, ControlFramesBetweenFragmentsLeaveTheMessageIntact) {
  const std::string input =
      masked(0x01, "Hel") + masked(0x89, "ping!") + masked(0x00, "l") + masked(0x8A, "") + masked(0x80, "o");
  expect_every_split(input, {ping("ping!"), pong(""), message(Opcode::text, "Hello")});
}

TEST(WsDecoder, BackToBackMessagesComeOneEventPerCall) {
  const std::string input = masked(0x81, "one") + masked(0x82, "two") + masked(0x81, "");
  expect_every_split(input,
                     {message(Opcode::text, "one"), message(Opcode::binary, "two"), message(Opcode::text, "")});
}

TEST(WsDecoder, EmptyFramesAndEmptyFragments) {
  expect_every_split(masked(0x01, "") + masked(0x00, "") + masked(0x80, ""), {message(Opcode::text, "")});
  expect_every_split(masked(0x89, ""), {ping("")});
}

TEST(WsDecoder, Utf8SequenceMaySpanFragments) {
  expect_every_split(masked(0x01, "\xE2") + masked(0x00, "\x82") + masked(0x80, "\xAC"),
                     {message(Opcode::text, "\xE2\x82\xAC")});
}

TEST(WsDecoder, BinaryMessagesAreNotUtf8Checked) {
  expect_every_split(masked(0x82, "\xC0\x80\xFF"), {message(Opcode::binary, "\xC0\x80\xFF")});
}

TEST(WsDecoder, MessageBufferKeepsItsCapacity) {
  Decoder decoder;
  ASSERT_EQ(run(decoder, masked(0x82, std::string(5000, 'a'))).size(), 1u);
  const std::size_t capacity = decoder.buffer_capacity();
  EXPECT_GE(capacity, 5000u);
  ASSERT_EQ(run(decoder, masked(0x82, "tiny")).size(), 1u);
  ASSERT_EQ(run(decoder, masked(0x02, std::string(2500, 'b')) + masked(0x80, std::string(2500, 'c'))).size(), 1u);
  EXPECT_EQ(decoder.buffer_capacity(), capacity);
}

// What the stream times: from a message's first byte to its last, control
// frames between fragments included.
TEST(WsDecoder, MidMessageFromTheFirstByteToTheLast) {
  Decoder decoder;
  EXPECT_FALSE(decoder.mid_message());
  const std::string whole = masked(0x81, "hello");
  std::span<const char> in(whole.data(), 1);
  ASSERT_EQ(decoder.feed(in).status, DecodeStatus::need_more);
  EXPECT_TRUE(decoder.mid_message());  // half a header
  in = std::span<const char>(whole.data() + 1, whole.size() - 2);
  ASSERT_EQ(decoder.feed(in).status, DecodeStatus::need_more);
  EXPECT_TRUE(decoder.mid_message());  // the payload's last byte is missing
  in = std::span<const char>(whole.data() + whole.size() - 1, 1);
  ASSERT_EQ(decoder.feed(in).status, DecodeStatus::message);
  EXPECT_FALSE(decoder.mid_message());

  const std::string first_fragment = masked(0x01, "frag");
  ASSERT_EQ(decoder.feed({first_fragment.data(), first_fragment.size()}).status, DecodeStatus::need_more);
  EXPECT_TRUE(decoder.mid_message());  // between fragments
  const std::string ping = masked(0x89, "p");
  ASSERT_EQ(decoder.feed({ping.data(), ping.size()}).status, DecodeStatus::ping);
  EXPECT_TRUE(decoder.mid_message());
  const std::string last_fragment = masked(0x80, "ment");
  ASSERT_EQ(decoder.feed({last_fragment.data(), last_fragment.size()}).status, DecodeStatus::message);
  EXPECT_FALSE(decoder.mid_message());
}

TEST(WsDecoder, EventPayloadStaysValidUntilTheNextFeed) {
  Decoder decoder;
  const std::string input = masked(0x81, "first") + masked(0x81, "second");
  std::span<const char> in(input.data(), input.size());
  const DecodeResult first = decoder.feed(in);
  ASSERT_EQ(first.status, DecodeStatus::message);
  EXPECT_EQ(std::string_view(first.payload.data(), first.payload.size()), "first");
  EXPECT_EQ(first.consumed, masked(0x81, "first").size());
  const DecodeResult second = decoder.feed(in.subspan(first.consumed));
  ASSERT_EQ(second.status, DecodeStatus::message);
  EXPECT_EQ(std::string_view(second.payload.data(), second.payload.size()), "second");
}

// ---- Close -----------------------------------------------------------------

TEST(WsDecoder, CloseReportsCodeAndReason) {
  expect_every_split(masked(0x88, close_payload(1000, "done")), {close(1000, "done")});
  expect_every_split(masked(0x88, ""), {close(1005, "")});
}

TEST(WsDecoder, AcceptsEveryValidCloseCode) {
  for (int c : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999}) {
    const auto code = static_cast<std::uint16_t>(c);
    Decoder decoder;
    EXPECT_EQ(run(decoder, masked(0x88, close_payload(code))), std::vector<Event>{close(code, "")}) << code;
  }
}

TEST(WsDecoder, DiscardsBytesAfterClose) {
  Decoder decoder;
  const std::string input = masked(0x88, close_payload(1001)) + masked(0x81, "late");
  const DecodeResult closed = decoder.feed({input.data(), input.size()});
  ASSERT_EQ(closed.status, DecodeStatus::close);
  const std::string rest = input.substr(closed.consumed);
  const DecodeResult after = decoder.feed({rest.data(), rest.size()});
  EXPECT_EQ(after.status, DecodeStatus::need_more);
  EXPECT_EQ(after.consumed, rest.size());
}

// ---- Errors ----------------------------------------------------------------

struct ErrorCase {
  const char* name;
  std::string input;
  std::uint16_t code;
  DecoderLimits limits = {};
};

void expect_errors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    expect_every_split(c.input, {error(c.code)}, c.limits);
  }
}

TEST(WsDecoder, ProtocolErrorsFailWith1002) {
  expect_errors({
      {"unmasked client frame", unmasked(0x81, "Hi"), 1002},
      {"masked server frame", masked(0x81, "Hi"), 1002, kClient},
      {"RSV1 without deflate", masked(0xC1, "Hi"), 1002},
      {"RSV2", masked(0xA1, "Hi"), 1002},
      {"RSV3", masked(0x91, "Hi"), 1002},
      {"control frame over 125 bytes", masked(0x89, std::string(126, 'p')), 1002},
      {"fragmented ping", masked(0x09, "p"), 1002},
      {"fragmented close", masked(0x08, close_payload(1000)), 1002},
      {"continuation without start", masked(0x80, "x"), 1002},
      {"new message inside a fragmented one", masked(0x01, "a") + masked(0x82, "b"), 1002},
      {"close payload of 1 byte", masked(0x88, "\x03"), 1002},
      {"64-bit length with top bit", std::string("\x82\xFF\x80\x00\x00\x00\x00\x00\x00\x00"sv), 1002},
  });
}

TEST(WsDecoder, ContinuationAfterAFinishedMessageFailsWith1002) {
  expect_every_split(masked(0x81, "a") + masked(0x80, "b"), {message(Opcode::text, "a"), error(1002)});
}

TEST(WsDecoder, ReservedOpcodesFailWith1002) {
  for (int op : {0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF}) {
    SCOPED_TRACE(op);
    expect_every_split(masked(static_cast<std::uint8_t>(0x80 | op), "x"), {error(1002)});
  }
}

TEST(WsDecoder, InvalidCloseCodesFailWith1002) {
  for (int c : {0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535}) {
    const auto code = static_cast<std::uint16_t>(c);
    Decoder decoder;
    EXPECT_EQ(run(decoder, masked(0x88, close_payload(code))), std::vector<Event>{error(1002)}) << code;
  }
}

TEST(WsDecoder, InvalidUtf8FailsWith1007) {
  expect_errors({
      {"overlong in text", masked(0x81, "ok \xC0\x80"), 1007},
      {"surrogate in text", masked(0x81, "\xED\xA0\x80"), 1007},
      {"text ends mid-sequence", masked(0x81, "\xE2\x82"), 1007},
      {"fragmented text ends mid-sequence", masked(0x01, "a\xF0") + masked(0x80, "\x9F"), 1007},
      {"close reason", masked(0x88, close_payload(1000, "\xFF")), 1007},
  });
}

TEST(WsDecoder, InvalidUtf8IsReportedInTheFragmentThatHoldsIt) {
  Decoder decoder;
  const std::string first = masked(0x01, "valid start ");
  ASSERT_TRUE(run(decoder, first).empty());
  // Second fragment, not final; only its header and first payload byte arrive.
  const std::string second = masked(0x00, "\xC0 and more text that never arrives");
  const DecodeResult r = decoder.feed({second.data(), 7});
  EXPECT_EQ(r.status, DecodeStatus::error);
  EXPECT_EQ(r.close_code, CloseCode::invalid_payload);
  EXPECT_EQ(r.consumed, 7u);
}

TEST(WsDecoder, OversizeMessageFailsWith1009AsSoonAsTheLengthIsKnown) {
  const DecoderLimits small{.max_message_size = 100};
  Decoder decoder(small);
  const std::string frame = masked(0x82, std::string(1000, 'x'));
  const DecodeResult r = decoder.feed({frame.data(), 4});  // just the 16-bit length
  EXPECT_EQ(r.status, DecodeStatus::error);
  EXPECT_EQ(r.close_code, CloseCode::message_too_big);
  EXPECT_EQ(decoder.buffer_capacity(), 0u);

  Decoder huge(small);
  const auto sixty_four = "\x82\xFF\x00\x00\x01\x00\x00\x00\x00\x00"sv;
  EXPECT_EQ(run(huge, sixty_four), std::vector<Event>{error(1009)});
}

TEST(WsDecoder, SizeLimitCountsAllFragments) {
  const DecoderLimits small{.max_message_size = 100};
  expect_every_split(masked(0x82, std::string(100, 'x')), {message(Opcode::binary, std::string(100, 'x'))}, small);
  expect_every_split(masked(0x02, std::string(60, 'x')) + masked(0x80, std::string(41, 'y')), {error(1009)}, small);
  expect_every_split(masked(0x89, std::string(125, 'p')), {ping(std::string(125, 'p'))}, small);
}

TEST(WsDecoder, ErrorIsStickyAndConsumesNothingMore) {
  Decoder decoder;
  const std::string bad = unmasked(0x81, "x");
  ASSERT_EQ(decoder.feed({bad.data(), bad.size()}).status, DecodeStatus::error);
  const std::string good = masked(0x81, "x");
  const DecodeResult again = decoder.feed({good.data(), good.size()});
  EXPECT_EQ(again.status, DecodeStatus::error);
  EXPECT_EQ(again.close_code, CloseCode::protocol_error);
  EXPECT_EQ(again.consumed, 0u);
}

// ---- permessage-deflate (RFC 7692 §7.2.3) ----------------------------------

TEST(WsDecoderDeflate, CompressedHelloFromAServer) {
  const DeflateParams params = deflate_params();
  expect_every_split("\xc1\x07\xf2\x48\xcd\xc9\xc9\x07\x00"sv, {message(Opcode::text, "Hello")}, kClient, &params);
}

TEST(WsDecoderDeflate, CompressedHelloFromAClientWholeAndFragmented) {
  const DeflateParams params = deflate_params();
  const auto hello = "\xf2\x48\xcd\xc9\xc9\x07\x00"sv;
  expect_every_split(masked(0xC1, hello), {message(Opcode::text, "Hello")}, {}, &params);
  expect_every_split(masked(0x41, hello.substr(0, 3)) + masked(0x80, hello.substr(3)),
                     {message(Opcode::text, "Hello")}, {}, &params);
}

TEST(WsDecoderDeflate, SharedWindowAcrossMessages) {
  const DeflateParams params = deflate_params();
  const std::string input = masked(0xC1, "\xf2\x48\xcd\xc9\xc9\x07\x00"sv) + masked(0xC1, "\xf2\x00\x11\x00\x00"sv);
  expect_every_split(input, {message(Opcode::text, "Hello"), message(Opcode::text, "Hello")}, {}, &params);
}

TEST(WsDecoderDeflate, NoContextTakeoverForgetsTheWindow) {
  const DeflateParams params = deflate_params(true);
  const std::string input = masked(0xC1, "\xf2\x48\xcd\xc9\xc9\x07\x00"sv) + masked(0xC1, "\xf2\x00\x11\x00\x00"sv);
  expect_every_split(input, {message(Opcode::text, "Hello"), error(1007)}, {}, &params);
}

TEST(WsDecoderDeflate, StoredBlockFinalBlockAndTwoBlocks) {
  const DeflateParams params = deflate_params();
  const std::string input = masked(0xC1, "\x00\x05\x00\xfa\xff\x48\x65\x6c\x6c\x6f\x00"sv) +
                            masked(0xC1, "\xf3\x48\xcd\xc9\xc9\x07\x00\x00"sv) +
                            masked(0xC1, "\xf2\x48\x05\x00\x00\x00\xff\xff\xca\xc9\xc9\x07\x00"sv) +
                            masked(0xC1, "\xf2\x48\xcd\xc9\xc9\x07\x00"sv);
  const Event hello = message(Opcode::text, "Hello");
  expect_every_split(input, {hello, hello, hello, hello}, {}, &params);
}

// After a final block a message may hold only padding (RFC 7692's example
// has one zero byte): more data there, in the same frame or a continuation,
// would be dropped without a word, so it is invalid data (1007).
TEST(WsDecoderDeflate, DataAfterTheFinalBlockIsRefused) {
  const DeflateParams params = deflate_params();
  const auto final_hello = "\xf3\x48\xcd\xc9\xc9\x07\x00"sv;
  expect_every_split(masked(0xC1, std::string(final_hello) + "JUNK"), {error(1007)}, {}, &params);
  expect_every_split(masked(0x41, final_hello) + masked(0x80, "\xf2\x48\xcd\xc9\xc9\x07\x00"sv), {error(1007)}, {},
                     &params);
  expect_every_split(masked(0xC1, std::string(final_hello) + std::string(3, '\0')),
                     {message(Opcode::text, "Hello")}, {}, &params);
}

// A sender may end each message with a final block and still keep its
// window: the second "Hello" is a back-reference into the first, which a
// window reset with the ended stream would refuse as corrupt.
TEST(WsDecoderDeflate, FinalBlocksWithContextTakeoverKeepTheWindow) {
  const DeflateParams params = deflate_params();
  const auto final_hello = "\xf3\x48\xcd\xc9\xc9\x07\x00"sv;
  const auto final_reference = "\xf3\x00\x11\x00"sv;
  const Event hello = message(Opcode::text, "Hello");
  expect_every_split(masked(0xC1, final_hello) + masked(0xC1, final_reference) + masked(0xC1, final_reference),
                     {hello, hello, hello}, {}, &params);
  const DeflateParams forgetting = deflate_params(true);
  expect_every_split(masked(0xC1, final_hello) + masked(0xC1, final_reference), {hello, error(1007)}, {},
                     &forgetting);
}

// A final block cut short of its last byte is completed by the tail the
// receiver appends; the rest of the tail is not the sender's data.
TEST(WsDecoderDeflate, AFinalBlockCompletedByTheTailPasses) {
  const DeflateParams params = deflate_params();
  expect_every_split(masked(0xC1, "\xf3\x48\xcd\xc9\xc9\x07"sv), {message(Opcode::text, "Hello")}, {}, &params);
}

TEST(WsDecoderDeflate, UncompressedMessagesStillPass) {
  const DeflateParams params = deflate_params();
  expect_every_split(masked(0x81, "plain"), {message(Opcode::text, "plain")}, {}, &params);
}

TEST(WsDecoderDeflate, ProtocolErrors) {
  const DeflateParams params = deflate_params();
  const auto hello = "\xf2\x48\xcd\xc9\xc9\x07\x00"sv;
  expect_every_split(masked(0xC9, ""), {error(1002)}, {}, &params);
  expect_every_split(masked(0x41, hello.substr(0, 3)) + masked(0xC0, hello.substr(3)), {error(1002)}, {}, &params);
  expect_every_split(masked(0xC1, "\xff\xff\xff\xff"), {error(1007)}, {}, &params);
  expect_every_split(masked(0xC1, deflate("\xC0\x80")), {error(1007)}, {}, &params);
}

TEST(WsDecoderDeflate, CompressionBombStopsAtTheLimit) {
  const DeflateParams params = deflate_params();
  const std::string bomb = deflate(std::string(std::size_t{8} << 20, '\0'));
  ASSERT_LT(bomb.size(), 20000u);
  const DecoderLimits limits{.max_message_size = 65536};
  Decoder decoder(limits);
  ASSERT_TRUE(decoder.set_deflate(params));
  EXPECT_EQ(run(decoder, masked(0xC2, bomb)), std::vector<Event>{error(1009)});
  EXPECT_LE(decoder.buffer_capacity(), limits.max_message_size);
}

TEST(WsDecoderDeflate, InflatedSizeExactlyAtTheLimitPasses) {
  const DeflateParams params = deflate_params();
  const DecoderLimits limits{.max_message_size = 4096};
  const std::string fits(4096, 'z');
  expect_every_split(masked(0xC2, deflate(fits)), {message(Opcode::binary, fits)}, limits, &params);
  expect_every_split(masked(0xC2, deflate(fits + "z")), {error(1009)}, limits, &params);
}

TEST(WsDecoderDeflate, BadUtf8BeforeTheLimitWinsOverTheLimitHoweverTheBytesArrive) {
  const DeflateParams params = deflate_params();
  const DecoderLimits limits{.max_message_size = 300};
  expect_every_split(masked(0xC1, deflate("ok \xC0" + std::string(1000, 'a'))), {error(1007)}, limits, &params);
  expect_every_split(masked(0xC1, deflate(std::string(1000, 'a') + "\xC0")), {error(1009)}, limits, &params);
}

TEST(WsDecoderDeflate, LargeCompressedTextRoundTrips) {
  const DeflateParams params = deflate_params();
  std::string text;
  for (int i = 0; text.size() < 200000; ++i) text += "event " + std::to_string(i) + " \xE2\x82\xAC\n";
  Decoder decoder;
  ASSERT_TRUE(decoder.set_deflate(params));
  EXPECT_EQ(run(decoder, masked(0xC1, deflate(text))), std::vector<Event>{message(Opcode::text, text)});
}

}  // namespace
}  // namespace sluice::proto::ws

namespace sluice::proto::ws {
namespace {

// The buffer's growth past its resting size is charged before it is made;
// a refused charge fails the message with 1009, naming the key.
TEST(WsDecoder, AMessageTheAccountRefusesIsClosedWith1009) {
  buf::MemoryCap cap(64 << 10);
  buf::MemoryAccount account(&cap, 1 << 20);
  Decoder decoder({.account = &account});
  const DecodeResult r = decoder.feed(masked(0x82, std::string(100 << 10, 'a')));
  ASSERT_EQ(r.status, DecodeStatus::error);
  EXPECT_EQ(r.close_code, CloseCode::message_too_big);
  EXPECT_NE(std::string_view(r.error).find("limits.server_bytes"), std::string_view::npos) << r.error;
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(WsDecoder, TrimGivesALargeBufferBackAndItsCharge) {
  buf::MemoryAccount account(nullptr, 1 << 20);
  Decoder decoder({.account = &account});
  ASSERT_EQ(run(decoder, masked(0x82, std::string(100 << 10, 'a'))).size(), 1u);
  EXPECT_GT(account.charged(), 0u);
  decoder.trim();
  EXPECT_EQ(decoder.buffer_capacity(), 0u);
  EXPECT_EQ(account.charged(), 0u);
  // A small message afterwards is not charged.
  ASSERT_EQ(run(decoder, masked(0x82, "tiny")).size(), 1u);
  EXPECT_EQ(account.charged(), 0u);
}

}  // namespace
}  // namespace sluice::proto::ws

namespace sluice::proto::ws {
namespace {

// zlib's state is charged to the account with the message buffer. When the
// account refuses it the extension has already been negotiated, so the
// decoder fails at the peer's first frame, naming the limit: 1008 for the
// connection's own share, 1013 for the server's.
TEST(WsDecoderDeflate, ZlibStateTheConnectionCannotHoldFailsWith1008) {
  buf::MemoryAccount account(nullptr, 1024);
  Decoder decoder({.account = &account});
  EXPECT_FALSE(decoder.set_deflate(deflate_params()));
  EXPECT_EQ(account.charged(), 0u);
  const DecodeResult r = decoder.feed(masked(0xC1, deflate("hello")));
  ASSERT_EQ(r.status, DecodeStatus::error);
  EXPECT_EQ(r.close_code, CloseCode::policy_violation);
  EXPECT_STREQ(r.error, "compression state over this connection's memory (limits.connection_bytes)");
}

TEST(WsDecoderDeflate, AWindowTheServerCannotHoldFailsWith1013) {
  buf::MemoryCap cap(16 << 10);  // zlib's state fits, its 32 KiB window does not
  buf::MemoryAccount account(&cap, 1 << 20);
  {
    Decoder decoder({.account = &account});
    ASSERT_TRUE(decoder.set_deflate(deflate_params()));
    EXPECT_GT(decoder.inflater_charged(), 0u);
    EXPECT_EQ(account.charged(), decoder.inflater_charged());
    const DecodeResult r = decoder.feed(masked(0xC1, deflate("hello")));
    ASSERT_EQ(r.status, DecodeStatus::error);
    EXPECT_EQ(r.close_code, CloseCode::try_again_later);
    EXPECT_STREQ(r.error, "server memory for compression is full (limits.server_bytes)");
  }
  EXPECT_EQ(cap.charged(), 0u);
}

}  // namespace
}  // namespace sluice::proto::ws
