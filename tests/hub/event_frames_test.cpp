#include "hub/event_frames.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hub/packed_frames.hpp"
#include "proto/ws_json.hpp"
#include "proto/ws_decoder.hpp"

namespace sluice::hub {
namespace {

struct EventFramesTest : testing::Test {
  // The payload as the hub keeps it: one byte of name length, the name, the data.
  buf::FrameRef payload(std::string_view name, std::string_view data) {
    std::string bytes(1, static_cast<char>(name.size()));
    bytes.append(name).append(data);
    return buf::make_frame(pool, buf::Lane::data, bytes);
  }

  std::string wire(const buf::FrameRef& frame) {
    std::string bytes(frame.size(), '\0');
    frame.copy_to(bytes.data(), bytes.size());
    return bytes;
  }

  // One WebSocket message, as a client reads it (its payload points into
  // this fixture's decoder, valid until the next decode).
  proto::ws::DecodeResult decode(const buf::FrameRef& frame) {
    last_wire = wire(frame);
    decoder.emplace(proto::ws::DecoderLimits{.role = proto::ws::Role::client});
    const proto::ws::DecodeResult r = decoder->feed({last_wire.data(), last_wire.size()});
    EXPECT_EQ(r.status, proto::ws::DecodeStatus::message);
    return r;
  }

  // The /ws envelope's text, out of its WebSocket frame.
  std::string envelope(const buf::FrameRef& frame) {
    const proto::ws::DecodeResult r = decode(frame);
    EXPECT_EQ(r.opcode, proto::ws::Opcode::text);
    return std::string(r.payload.data(), r.payload.size());
  }

  buf::Pool pool{{.block_count = 64, .block_size = 256, .reserve = 4}};
  FrameScratch scratch;
  buf::FrameRef sse;
  std::string last_wire;
  std::optional<proto::ws::Decoder> decoder;
};

TEST_F(EventFramesTest, TheJsonEnvelopeIsTheCodecsEvent) {
  const buf::FrameRef data = payload("tick", "{\"p\":101}");
  EventFrames frames(pool, scratch, "prices", EventIdText("ep", 0, 42), sse, data);
  EXPECT_EQ(envelope(frames.form(WireForm::ws_envelope)),
            R"({"op":"event","topic":"prices","id":"ep:42","event":"tick","data":"{\"p\":101}"})");
}

TEST_F(EventFramesTest, DataThatIsNotUtf8GoesAsBase64AndReadsBack) {
  const std::string bytes("\x00\xff\xfe binary", 10);
  const buf::FrameRef data = payload("", bytes);
  EventFrames frames(pool, scratch, "raw", EventIdText("ep", 0, 1), sse, data);
  const std::string text = envelope(frames.form(WireForm::ws_envelope));
  EXPECT_EQ(text, R"({"op":"event","topic":"raw","id":"ep:1","data_b64":"AP/+IGJpbmFyeQ=="})");
  std::vector<char> buffer(text.size());
  proto::wsjson::ServerMessage m;
  ASSERT_TRUE(proto::wsjson::read_server_message(text, proto::wsjson::Style::json_protocol, {}, buffer, m).ok());
  EXPECT_TRUE(m.binary);
  EXPECT_EQ(m.data, bytes);
}

// An event published while its topic had no SSE subscriber carries no SSE
// form; the first loop that needs one builds it from the payload, once.
TEST_F(EventFramesTest, TheSseFormNobodyBuiltIsBuiltFromThePayloadOnce) {
  buf::FrameRef data = payload("tick", "a\nb");
  data.set_published_ns(1234);  // the event's publish time, which the form keeps
  EventFrames frames(pool, scratch, "prices", EventIdText("ep", 0, 42), sse, data);
  const buf::FrameRef& built = frames.form(WireForm::sse);
  std::string wire(built.size(), '\0');
  built.copy_to(wire.data(), wire.size());
  EXPECT_EQ(wire, "event: tick\nid: ep:42\ndata: a\ndata: b\n\n");
  EXPECT_TRUE(frames.sse() == built);
  EXPECT_EQ(built.use_count(), 1u);
  EXPECT_EQ(built.published_ns(), 1234);
}

TEST_F(EventFramesTest, AnSseFormThePublisherBuiltIsHandedOutAsItIs) {
  const buf::FrameRef data = payload("", "x");
  const buf::FrameRef published = buf::make_frame(pool, buf::Lane::data, "id: ep:1\ndata: x\n\n");
  EventFrames frames(pool, scratch, "t", EventIdText("ep", 0, 1), published, data);
  EXPECT_TRUE(frames.form(WireForm::sse) == published);
  EXPECT_EQ(published.use_count(), 1u);
}

// The publisher's frames come from the message itself; the id is written
// only for the forms that carry it, in the epoch the event was kept with.
TEST_F(EventFramesTest, APublishersFormsAreBuiltFromTheMessageWithTheIdWrittenWhenAsked) {
  const Message message{.data = "a\nb", .event = "tick"};
  const buf::FrameRef data = payload("", "not read");  // the message is, not this
  EventFrames frames(pool, scratch, "prices", EventIdText("ep", 0, 42), message, data);
  const proto::ws::DecodeResult ws = decode(frames.form(WireForm::ws_message));
  EXPECT_EQ(ws.opcode, proto::ws::Opcode::text);
  EXPECT_EQ(std::string(ws.payload.data(), ws.payload.size()), "a\nb");
  EXPECT_EQ(wire(frames.form(WireForm::sse)), "event: tick\nid: ep:42\ndata: a\ndata: b\n\n");
  EXPECT_EQ(envelope(frames.form(WireForm::ws_envelope)),
            R"({"op":"event","topic":"prices","id":"ep:42","event":"tick","data":"a\nb"})");
}

TEST_F(EventFramesTest, APublishersDataThatIsNotUtf8GoesAsABinaryMessage) {
  const std::string bytes("\x00\xff", 2);
  const Message message{.data = bytes};
  const buf::FrameRef data = payload("", "ok");
  EventFrames frames(pool, scratch, "raw", EventIdText("ep", 0, 1), message, data);
  const proto::ws::DecodeResult ws = decode(frames.form(WireForm::ws_message));
  EXPECT_EQ(ws.opcode, proto::ws::Opcode::binary);
  EXPECT_EQ(std::string(ws.payload.data(), ws.payload.size()), bytes);
}

// A scratch makes its compressor (about 256 KiB of zlib state) for the
// first deflated form it builds, and keeps it for the next: a scratch that
// builds only plain forms never holds one.
TEST_F(EventFramesTest, TheScratchMakesItsCompressorForTheFirstDeflatedFormOnly) {
  const std::string letters(200, 'z');
  const Message message{.data = letters, .event = "tick"};
  const buf::FrameRef data = payload("", "not read");
  {
    EventFrames frames(pool, scratch, "t", EventIdText("ep", 0, 1), message, data);
    ASSERT_TRUE(frames.form(WireForm::ws_message));
    ASSERT_TRUE(frames.form(WireForm::ws_envelope));
    ASSERT_TRUE(frames.form(WireForm::sse));
  }
  EXPECT_FALSE(scratch.deflater.has_value());
  EventFrames frames(pool, scratch, "t", EventIdText("ep", 0, 2), message, data);
  const buf::FrameRef& deflated = frames.form(WireForm::ws_message_deflated);
  ASSERT_TRUE(deflated);
  ASSERT_TRUE(scratch.deflater.has_value());
  EXPECT_LT(deflated.size(), 100u) << "200 bytes of one letter, compressed";
  const proto::ws::Deflater* made = &*scratch.deflater;
  ASSERT_TRUE(frames.form(WireForm::ws_envelope_deflated));
  EXPECT_EQ(&*scratch.deflater, made) << "made once, then reused";
}

// The publisher keeps what it built: handed over, the kept form's only
// reference is the one taken; a form built elsewhere stays shared.
TEST_F(EventFramesTest, AFormBuiltHereIsTakenWholeAndOneBuiltElsewhereIsShared) {
  const Message message{.data = "{\"p\":1}"};
  buf::FrameRef built;
  {
    EventFrames frames(pool, scratch, "prices", EventIdText("ep", 0, 42), message, sse);
    built = frames.take(WireForm::ws_message);
    const buf::FrameRef sse_form = frames.take(WireForm::sse);
    ASSERT_TRUE(built);
    ASSERT_TRUE(sse_form);
    EXPECT_EQ(built.use_count(), 1U);  // while `frames` lives: it kept none
    EXPECT_EQ(sse_form.use_count(), 1U);
  }
  EXPECT_EQ(decode(built).payload.size(), message.data.size());

  std::array<buf::FrameRef, kWsForms> prebuilt;
  prebuilt[ws_index(WireForm::ws_message)] = built;
  const buf::FrameRef data = payload("", message.data);
  EventFrames frames(pool, scratch, "prices", EventIdText("ep", 0, 42), sse, data, prebuilt.data());
  const buf::FrameRef taken = frames.take(WireForm::ws_message);
  EXPECT_TRUE(taken == built);
  EXPECT_EQ(built.use_count(), 3U);  // `built`, the prebuilt array's and `taken`
}

// An event with no name whose WebSocket message the publisher built keeps
// no payload frame (KeptEvent): its other forms are built from the data in
// that message, whatever its header's length, and carry its publish time.
TEST_F(EventFramesTest, AnEventWithoutAPayloadFrameBuildsItsFormsFromItsWebSocketMessage) {
  for (const std::string& data : {std::string("a\nb"), std::string(300, 'x')}) {
    std::array<buf::FrameRef, kWsForms> ws;
    buf::FrameRef& message = ws[ws_index(WireForm::ws_message)];
    message = make_ws_frame(pool, scratch.slabs, proto::ws::Opcode::text, {data.data(), data.size()}, nullptr);
    message.set_published_ns(77);
    const buf::FrameRef no_payload;
    EventFrames frames(pool, scratch, "t", EventIdText("ep", 0, 5), sse, no_payload, ws.data());
    const std::string lines = data.size() == 3 ? "data: a\ndata: b\n" : "data: " + data + "\n";
    EXPECT_EQ(wire(frames.form(WireForm::sse)), "id: ep:5\n" + lines + "\n");
    EXPECT_EQ(frames.sse().published_ns(), 77);
    const std::string json = data.size() == 3 ? "a\\nb" : data;
    EXPECT_EQ(envelope(frames.form(WireForm::ws_envelope)),
              R"({"op":"event","topic":"t","id":"ep:5","data":")" + json + "\"}");
    EXPECT_EQ(frames.form(WireForm::ws_envelope).published_ns(), 77);
    EXPECT_TRUE(frames.form(WireForm::ws_message) == message);
  }
}

// Data that went as a binary message is not UTF-8: its envelope carries it
// as base64.
TEST_F(EventFramesTest, AWebSocketMessageThatWentAsBinaryGivesBinaryData) {
  const std::string bytes("\x00\xff", 2);
  std::array<buf::FrameRef, kWsForms> ws;
  ws[ws_index(WireForm::ws_message)] =
      make_ws_frame(pool, scratch.slabs, proto::ws::Opcode::binary, {bytes.data(), bytes.size()}, nullptr);
  const buf::FrameRef no_payload;
  EventFrames frames(pool, scratch, "raw", EventIdText("ep", 0, 1), sse, no_payload, ws.data());
  EXPECT_EQ(envelope(frames.form(WireForm::ws_envelope)),
            R"({"op":"event","topic":"raw","id":"ep:1","data_b64":"AP8="})");
}

// A loop's drain gives each event an EventFrames, all with the loop's one
// scratch: an event whose bytes another event loaded since loads its own
// again before it builds a second form.
TEST_F(EventFramesTest, EachEventOfADrainBuildsFromItsOwnBytes) {
  const buf::FrameRef first = payload("", "first");
  const buf::FrameRef other = payload("", "other");
  EventFrames a(pool, scratch, "t", EventIdText("ep", 0, 1), sse, first);
  EventFrames b(pool, scratch, "t", EventIdText("ep", 0, 2), sse, other);
  (void)a.form(WireForm::ws_message);
  (void)b.form(WireForm::ws_message);
  EXPECT_EQ(envelope(a.form(WireForm::ws_envelope)), R"({"op":"event","topic":"t","id":"ep:1","data":"first"})");
  EXPECT_EQ(wire(a.form(WireForm::sse)), "id: ep:1\ndata: first\n\n");
}

TEST(EventIdText, AStreamsIdIsWrittenInItsOwnEpoch) {
  EventIdText run("ep", 0, 7);
  EXPECT_EQ(run.view(), "ep:7");
  EventIdText stream("ep", 36, 7);  // 36 ms: "10" in base 36
  EXPECT_EQ(stream.view(), "10:7");
  const EventIdText copy = stream;  // a copy holds its own text
  EXPECT_EQ(EventIdText(copy).view(), "10:7");
}

// A publisher thread publishing event after event gets the scratch it gave
// back; publishers at once each get one of their own, and every scratch
// lent comes back to be lent again.
// A lease kept alive beside others (a Lease does not move).
struct HeldLease {
  explicit HeldLease(ScratchPool& pool) : lease(pool.lend()) {}
  ScratchPool::Lease lease;
};

TEST(ScratchPool, LendsBackWhatWasGivenBackAndOneEachToLeasesAtOnce) {
  ScratchPool pool;
  FrameScratch* first = nullptr;
  {
    ScratchPool::Lease lease = pool.lend();
    first = &*lease;
  }
  {
    ScratchPool::Lease again = pool.lend();
    EXPECT_EQ(&*again, first);
  }
  constexpr std::size_t kAtOnce = 7;  // more than the pool keeps in its lock-free slots
  std::vector<FrameScratch*> lent;
  {
    std::vector<std::unique_ptr<HeldLease>> leases;
    for (std::size_t i = 0; i < kAtOnce; ++i) {
      leases.push_back(std::make_unique<HeldLease>(pool));
      lent.push_back(&*leases.back()->lease);
    }
    std::vector<FrameScratch*> distinct = lent;
    std::sort(distinct.begin(), distinct.end());
    EXPECT_EQ(std::unique(distinct.begin(), distinct.end()), distinct.end());
  }
  std::vector<FrameScratch*> relent;
  {
    std::vector<std::unique_ptr<HeldLease>> leases;
    for (std::size_t i = 0; i < kAtOnce; ++i) {
      leases.push_back(std::make_unique<HeldLease>(pool));
      relent.push_back(&*leases.back()->lease);
    }
  }
  std::sort(lent.begin(), lent.end());
  std::sort(relent.begin(), relent.end());
  EXPECT_EQ(relent, lent);
}

}  // namespace
}  // namespace sluice::hub
