#include "proto/ws_deflate.hpp"

#include <gtest/gtest.h>

#include "collecting_sink.hpp"

#include <string>

namespace sluice::proto::ws {
namespace {

using namespace std::string_view_literals;

using StringSink = test::CollectingSink;

std::string response_for(std::string_view offers, int server_bits = kMaxWindowBits) {
  const DeflateParams params = negotiate_deflate(offers, server_bits);
  if (!params.enabled) return "declined";
  StringSink out;
  EXPECT_TRUE(write_deflate_response(params, out));
  return out.bytes;
}

std::string compress(Deflater& deflater, std::string_view text) {
  const DeflateOutput out = deflater.compress({text.data(), text.size()});
  EXPECT_TRUE(out.ok);
  return std::string(out.bytes.data(), out.bytes.size());
}

// Inflates one message through `out_room`-byte output windows, the way a
// caller with a small buffer would.
InflateStatus inflate_message(Inflater& inflater, std::string_view compressed, std::string& text,
                              std::size_t out_room = 7) {
  std::string room(out_room, '\0');
  std::span<const char> in(compressed.data(), compressed.size());
  for (;;) {
    const InflateResult r = inflater.inflate(in, {room.data(), room.size()});
    text.append(room.data(), r.produced);
    in = in.subspan(r.consumed);
    if (r.status != InflateStatus::need_space && r.status != InflateStatus::ok) return r.status;
    if (r.status == InflateStatus::ok) break;
  }
  for (;;) {
    const InflateResult r = inflater.finish({room.data(), room.size()});
    text.append(room.data(), r.produced);
    if (r.status != InflateStatus::need_space) return r.status;
  }
}

// ---- Negotiation -----------------------------------------------------------

TEST(WsDeflateNegotiation, PlainOfferGetsServerNoContextTakeover) {
  const DeflateParams p = negotiate_deflate("permessage-deflate");
  EXPECT_TRUE(p.enabled);
  EXPECT_TRUE(p.server_no_context_takeover);
  EXPECT_FALSE(p.client_no_context_takeover);
  EXPECT_EQ(p.client_max_window_bits, 15);
  EXPECT_EQ(response_for("permessage-deflate"), "permessage-deflate; server_no_context_takeover");
}

TEST(WsDeflateNegotiation, ClientWindowBits) {
  EXPECT_EQ(response_for("permessage-deflate; client_max_window_bits"),
            "permessage-deflate; server_no_context_takeover");
  EXPECT_EQ(response_for("permessage-deflate; client_max_window_bits=10"),
            "permessage-deflate; server_no_context_takeover; client_max_window_bits=10");
  EXPECT_EQ(response_for("permessage-deflate; client_max_window_bits=\"9\""),
            "permessage-deflate; server_no_context_takeover; client_max_window_bits=9");
  EXPECT_EQ(negotiate_deflate("permessage-deflate;client_max_window_bits = 12").client_max_window_bits, 12);
}

TEST(WsDeflateNegotiation, ClientNoContextTakeoverIsEchoed) {
  const DeflateParams p = negotiate_deflate("permessage-deflate; client_no_context_takeover");
  EXPECT_TRUE(p.client_no_context_takeover);
  EXPECT_EQ(response_for("permessage-deflate; client_no_context_takeover; server_no_context_takeover"),
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover");
}

TEST(WsDeflateNegotiation, ServerWindowIsAnsweredOnlyWhenAsked) {
  EXPECT_EQ(response_for("permessage-deflate", 10), "permessage-deflate; server_no_context_takeover");
  EXPECT_EQ(response_for("permessage-deflate; server_max_window_bits=12", 10),
            "permessage-deflate; server_no_context_takeover; server_max_window_bits=10");
  EXPECT_EQ(response_for("permessage-deflate; server_max_window_bits=15"),
            "permessage-deflate; server_no_context_takeover; server_max_window_bits=15");
}

TEST(WsDeflateNegotiation, OfferForASmallerServerWindowIsDeclined) {
  EXPECT_EQ(response_for("permessage-deflate; server_max_window_bits=10"), "declined");
  EXPECT_EQ(response_for("permessage-deflate; server_max_window_bits=8", 8), "declined");  // zlib needs 9
  EXPECT_EQ(response_for("permessage-deflate; server_max_window_bits=9", 8),
            "permessage-deflate; server_no_context_takeover; server_max_window_bits=9");
}

TEST(WsDeflateNegotiation, FirstAcceptableOfferWins) {
  EXPECT_EQ(response_for("permessage-deflate; server_max_window_bits=10, permessage-deflate; client_max_window_bits=11"),
            "permessage-deflate; server_no_context_takeover; client_max_window_bits=11");
  EXPECT_EQ(response_for("x-webkit-deflate-frame, Permessage-Deflate"), "permessage-deflate; server_no_context_takeover");
  EXPECT_EQ(response_for(", ,permessage-deflate"), "permessage-deflate; server_no_context_takeover");
  EXPECT_EQ(response_for("permessage-deflate; foo=1, permessage-deflate"), "permessage-deflate; server_no_context_takeover");
}

TEST(WsDeflateNegotiation, InvalidOrDuplicateParametersDeclineTheOffer) {
  for (std::string_view offer : {
           "permessage-deflate; unknown",
           "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
           "permessage-deflate; client_max_window_bits; client_max_window_bits=10",
           "permessage-deflate; server_no_context_takeover=1",
           "permessage-deflate; client_no_context_takeover=\"\"",
           "permessage-deflate; server_max_window_bits",
           "permessage-deflate; server_max_window_bits=7",
           "permessage-deflate; server_max_window_bits=16",
           "permessage-deflate; server_max_window_bits=015",
           "permessage-deflate; client_max_window_bits=1a",
           "permessage-deflate; client_max_window_bits=\"\"",
           "permessage-deflate; client_max_window_bits=100000000000000000009",
           "deflate-frame",
           "",
       }) {
    EXPECT_FALSE(negotiate_deflate(offer).enabled) << offer;
  }
}

TEST(WsDeflateNegotiation, MalformedHeaderDeclinesEverything) {
  for (std::string_view offer : {
           "permessage-deflate;",
           "permessage-deflate; =10",
           "permessage-deflate; client_max_window_bits=",
           "permessage-deflate; client_max_window_bits=\"10",
           "permessage-deflate client_max_window_bits",
           "bad ext, permessage-deflate",
           "\"quoted\"",
       }) {
    EXPECT_FALSE(negotiate_deflate(offer).enabled) << offer;
  }
}

TEST(WsDeflateNegotiation, QuotedPairsAreUnescaped) {
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits=\"1\\3\"").client_max_window_bits, 13);
}

// ---- Deflater --------------------------------------------------------------

TEST(WsDeflater, CompressesHelloAsInRfc7692) {
  Deflater deflater;
  ASSERT_TRUE(deflater.ok());
  EXPECT_EQ(compress(deflater, "Hello"), "\xf2\x48\xcd\xc9\xc9\x07\x00"sv);
  // No context takeover: the same message compresses the same way again.
  EXPECT_EQ(compress(deflater, "Hello"), "\xf2\x48\xcd\xc9\xc9\x07\x00"sv);
  EXPECT_EQ(compress(deflater, ""), "\x00"sv);
}

TEST(WsDeflater, GrowsForIncompressibleMessages) {
  std::string noise(100000, '\0');
  std::uint32_t x = 12345;
  for (char& c : noise) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 24);
  }
  Deflater deflater(9, 1);
  const std::string compressed = compress(deflater, noise);
  Inflater inflater(9, true, noise.size());
  std::string text;
  EXPECT_EQ(inflate_message(inflater, compressed, text, 4096), InflateStatus::ok);
  EXPECT_EQ(text, noise);
}

// ---- Inflater --------------------------------------------------------------

TEST(WsInflater, InflatesThroughATinyOutputWindow) {
  Inflater inflater(15, false, 1 << 20);
  ASSERT_TRUE(inflater.ok());
  std::string text;
  EXPECT_EQ(inflate_message(inflater, "\xf2\x48\xcd\xc9\xc9\x07\x00"sv, text, 1), InflateStatus::ok);
  EXPECT_EQ(text, "Hello");
  text.clear();
  EXPECT_EQ(inflate_message(inflater, "\xf2\x00\x11\x00\x00"sv, text), InflateStatus::ok);
  EXPECT_EQ(text, "Hello");
}

TEST(WsInflater, FeedsCompressedBytesOneAtATime) {
  Deflater deflater;
  const std::string original = "one two three two one, one two three two one";
  const std::string compressed = compress(deflater, original);
  Inflater inflater(15, true, 1 << 20);
  std::string text;
  char room[64];
  for (char byte : compressed) {
    const InflateResult r = inflater.inflate({&byte, 1}, room);
    ASSERT_EQ(r.status, InflateStatus::ok);
    EXPECT_EQ(r.consumed, 1u);
    text.append(room, r.produced);
  }
  const InflateResult r = inflater.finish(room);
  ASSERT_EQ(r.status, InflateStatus::ok);
  text.append(room, r.produced);
  EXPECT_EQ(text, original);
}

TEST(WsInflater, StopsABombAtTheLimit) {
  Deflater deflater;
  const std::string bomb = compress(deflater, std::string(std::size_t{16} << 20, 'a'));
  const std::size_t limit = 100000;
  Inflater inflater(15, true, limit);
  std::string text;
  EXPECT_EQ(inflate_message(inflater, bomb, text, 4096), InflateStatus::too_big);
  EXPECT_EQ(text.size(), limit);
}

TEST(WsInflater, LimitIsExact) {
  Deflater deflater;
  for (std::size_t size : {999u, 1000u, 1001u}) {
    Inflater inflater(15, true, 1000);
    std::string text;
    const auto expected = size <= 1000 ? InflateStatus::ok : InflateStatus::too_big;
    EXPECT_EQ(inflate_message(inflater, compress(deflater, std::string(size, 'q')), text, 1000), expected) << size;
  }
}

TEST(WsInflater, CorruptStream) {
  Inflater inflater(15, true, 1000);
  std::string text;
  EXPECT_EQ(inflate_message(inflater, "\xff\xff"sv, text), InflateStatus::corrupt);
}

}  // namespace
}  // namespace sluice::proto::ws
