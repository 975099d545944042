#include "proto/ws_json_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "buf/fixed_sink.hpp"
#include "buf/string_sink.hpp"

namespace sluice::proto::wsjson {
namespace {

template <class Message, class Write>
std::string text_of(const Message& message, Write write) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(write(sink, message));
  return out;
}

std::string event_text(const Event& e) {
  return text_of(e, [](buf::Sink& s, const Event& m) { return write_event(s, m); });
}
std::string ack_text(const Ack& a) {
  return text_of(a, [](buf::Sink& s, const Ack& m) { return write_ack(s, m); });
}
std::string request_text(const Request& r) {
  return text_of(r, [](buf::Sink& s, const Request& m) { return write_request(s, m); });
}
std::string dropped_text(Style style, const Dropped& d) {
  return text_of(d, [style](buf::Sink& s, const Dropped& m) { return write_dropped(s, style, m); });
}
std::string reset_text(Style style, const Reset& r) {
  return text_of(r, [style](buf::Sink& s, const Reset& m) { return write_reset(s, style, m); });
}

// Reads back what a writer wrote; the views point into `text` and `scratch`.
ServerMessage read_back(std::string_view text, Style style, std::vector<char>& scratch) {
  scratch.assign(text.size(), '\0');
  ServerMessage m;
  const ReadResult r = read_server_message(text, style, {}, scratch, m);
  EXPECT_TRUE(r.ok()) << r.reason << ": " << text;
  return m;
}

Req req_from(std::string_view json) {
  // A Req with any text comes only from the reader.
  const std::string text = R"({"op":"unsubscribe","topic":"t","req":)" + std::string(json) + "}";
  std::vector<char> scratch(text.size());
  Request request;
  EXPECT_TRUE(read_request(text, {}, scratch, request).ok()) << json;
  return request.req;
}

TEST(WsJsonWriter, Events) {
  EXPECT_EQ(event_text({"prices", "mx3d1k2a:42", "tick", "{\"p\":101}"}),
            R"({"op":"event","topic":"prices","id":"mx3d1k2a:42","event":"tick","data":"{\"p\":101}"})");
  EXPECT_EQ(event_text({"t", "E:1", "", "hello"}), R"({"op":"event","topic":"t","id":"E:1","data":"hello"})");
  EXPECT_EQ(event_text({"t", "E:3", "", std::string_view("\x00\xff", 2), true}),
            R"({"op":"event","topic":"t","id":"E:3","data_b64":"AP8="})");
  EXPECT_TRUE(needs_base64("\xff"));
  EXPECT_FALSE(needs_base64("caf\xc3\xa9"));
}

TEST(WsJsonWriter, Acks) {
  EXPECT_EQ(ack_text({Req(1), true}), R"({"op":"ack","req":1,"ok":true})");
  EXPECT_EQ(ack_text({Req(3), true, "mx3d1k2a:7"}), R"({"op":"ack","req":3,"ok":true,"id":"mx3d1k2a:7"})");
  EXPECT_EQ(ack_text({Req(2), true, "", "E:41"}), R"({"op":"ack","req":2,"ok":true,"last_id":"E:41"})");
  EXPECT_EQ(ack_text({Req(4), false, "", "", "bad topic name"}),
            R"({"op":"ack","req":4,"ok":false,"error":"bad topic name"})");
  EXPECT_EQ(ack_text({Req(), false, "", "", "not a JSON object"}),
            R"({"op":"ack","req":null,"ok":false,"error":"not a JSON object"})");
  EXPECT_EQ(ack_text({req_from("9223372036854775809"), true}), R"({"op":"ack","req":9223372036854775809,"ok":true})");
  EXPECT_EQ(ack_text({req_from(R"("a\u0022")"), true}), R"({"op":"ack","req":"a\u0022","ok":true})");
}

TEST(WsJsonWriter, NoticesInEachStyle) {
  const Dropped dropped{"prices", 12, "E:50", "E:61", "latest"};
  EXPECT_EQ(dropped_text(Style::json_protocol, dropped),
            R"({"op":"dropped","topic":"prices","dropped":12,"first_id":"E:50","last_id":"E:61","policy":"latest"})");
  EXPECT_EQ(dropped_text(Style::raw_topic, dropped),
            R"({"sluice":"dropped","topic":"prices","dropped":12,"first_id":"E:50","last_id":"E:61","policy":"latest"})");
  EXPECT_EQ(dropped_text(Style::bare, dropped),
            R"({"topic":"prices","dropped":12,"first_id":"E:50","last_id":"E:61","policy":"latest"})");
  const Reset reset{"prices", "too-old", "mx3d1k2a:3"};
  EXPECT_EQ(reset_text(Style::json_protocol, reset),
            R"({"op":"reset","topic":"prices","reason":"too-old","last_id":"mx3d1k2a:3"})");
  EXPECT_EQ(reset_text(Style::raw_topic, reset),
            R"({"sluice":"reset","topic":"prices","reason":"too-old","last_id":"mx3d1k2a:3"})");
  EXPECT_EQ(reset_text(Style::bare, reset), R"({"topic":"prices","reason":"too-old","last_id":"mx3d1k2a:3"})");
}

TEST(WsJsonWriter, Requests) {
  Request sub{.op = Op::subscribe, .topic = "prices", .since = "E:41", .policy = "latest", .req = Req(1)};
  EXPECT_EQ(request_text(sub), R"({"op":"subscribe","topic":"prices","since":"E:41","policy":"latest","req":1})");
  Request pub{.op = Op::publish, .topic = "t", .data = "a\"b\n", .event = "e", .req = Req(7)};
  EXPECT_EQ(request_text(pub), R"({"op":"publish","topic":"t","data":"a\"b\n","event":"e","req":7})");
  Request unsub{.op = Op::unsubscribe, .topic = "t", .data = "ignored", .token = "tk"};
  EXPECT_EQ(request_text(unsub), R"({"op":"unsubscribe","topic":"t","token":"tk"})");
  Request empty{.op = Op::publish, .topic = "t"};
  EXPECT_EQ(request_text(empty), R"({"op":"publish","topic":"t","data":""})");
  Request refresh{.op = Op::refresh, .token = "a.b.c", .req = Req(8)};
  EXPECT_EQ(request_text(refresh), R"({"op":"refresh","token":"a.b.c","req":8})");
}

std::string every_byte() {
  std::string bytes(256, '\0');
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<char>(i);
  return bytes;
}

const std::string kAwkward =
    std::string("q\"b\\s/ \b\f\n\r\t\x01\x1f\x7f caf\xc3\xa9 \xf0\x9f\x98\x80 ") + '\0' + "end";

TEST(WsJsonWriter, EventsRoundTrip) {
  std::vector<char> scratch;
  const std::string bytes = every_byte();
  const std::string large(100'000, 'x');
  for (const Event& e : {Event{"t", "E:1", "", ""}, Event{"a.b:c-d_e", "E:18446744073709551615", kAwkward, kAwkward},
                         Event{"t", "E:2", "bin", bytes, true}, Event{"t", "E:3", "", "", true},
                         Event{"t", "E:4", "", large}}) {
    const std::string text = event_text(e);
    const ServerMessage m = read_back(text, Style::json_protocol, scratch);
    EXPECT_EQ(m.op, ServerOp::event);
    EXPECT_EQ(m.topic, e.topic);
    EXPECT_EQ(m.id, e.id);
    EXPECT_EQ(m.event, e.event);
    EXPECT_EQ(m.data, e.data);
    EXPECT_EQ(m.binary, e.binary);
  }
}

TEST(WsJsonWriter, AcksRoundTrip) {
  std::vector<char> scratch;
  for (const Ack& a : {Ack{Req(0), true}, Ack{Req(18446744073709551615u), true, "E:9", "E:8"},
                       Ack{req_from(R"("x\"y")"), false, "", "", kAwkward}, Ack{Req(), false, "", "", ""},
                       Ack{req_from("-1.5e-7"), true}, Ack{req_from("null"), true}}) {
    const std::string text = ack_text(a);
    const ServerMessage m = read_back(text, Style::json_protocol, scratch);
    EXPECT_EQ(m.op, ServerOp::ack);
    EXPECT_EQ(m.req.text(), a.req.present() ? a.req.text() : "null");
    EXPECT_EQ(m.ok, a.ok);
    EXPECT_EQ(m.id, a.id);
    EXPECT_EQ(m.last_id, a.last_id);
    EXPECT_EQ(m.error, a.error);
  }
}

TEST(WsJsonWriter, NoticesRoundTrip) {
  std::vector<char> scratch;
  for (const Style style : {Style::json_protocol, Style::raw_topic, Style::bare}) {
    const Dropped d{"prices", 18446744073709551615u, "E:1", "E:2", "drop-oldest"};
    const std::string dropped = dropped_text(style, d);
    ServerMessage m = read_back(dropped, style, scratch);
    EXPECT_EQ(m.op, style == Style::bare ? ServerOp::other : ServerOp::dropped);
    EXPECT_EQ(m.topic, d.topic);
    EXPECT_EQ(m.dropped, d.count);
    EXPECT_EQ(m.first_id, d.first_id);
    EXPECT_EQ(m.last_id, d.last_id);
    EXPECT_EQ(m.policy, d.policy);
    const Reset r{"prices", "unknown-id", kAwkward};
    const std::string reset = reset_text(style, r);
    m = read_back(reset, style, scratch);
    EXPECT_EQ(m.op, style == Style::bare ? ServerOp::other : ServerOp::reset);
    EXPECT_EQ(m.topic, r.topic);
    EXPECT_EQ(m.reason, r.reason);
    EXPECT_EQ(m.last_id, r.last_id);
  }
}

TEST(WsJsonWriter, RequestsRoundTrip) {
  for (const Request& request :
       {Request{.op = Op::subscribe, .topic = "t", .since = "E:1", .policy = "latest", .token = kAwkward,
                .req = Req(5)},
        Request{.op = Op::subscribe, .topic = ""},
        Request{.op = Op::unsubscribe, .topic = kAwkward, .req = req_from("true")},
        Request{.op = Op::publish, .topic = "t", .data = kAwkward, .event = kAwkward, .key = "k",
                .req = req_from("\"r\"")},
        Request{.op = Op::publish, .topic = "t", .data = ""},
        Request{.op = Op::refresh, .token = kAwkward, .req = Req(6)}}) {
    const std::string text = request_text(request);
    std::vector<char> scratch(text.size());
    Request back;
    const ReadResult r = read_request(text, {}, scratch, back);
    ASSERT_TRUE(r.ok()) << r.reason << ": " << text;
    EXPECT_EQ(back.op, request.op);
    EXPECT_EQ(back.topic, request.topic);
    EXPECT_EQ(back.req, request.req);
    EXPECT_EQ(back.token, request.token);
    if (request.op == Op::subscribe) {
      EXPECT_EQ(back.since, request.since);
      EXPECT_EQ(back.policy, request.policy);
    }
    if (request.op == Op::publish) {
      EXPECT_EQ(back.data, request.data);
      EXPECT_EQ(back.event, request.event);
      EXPECT_EQ(back.key, request.key);
    }
  }
}

TEST(WsJsonWriter, BytesThatAreNotUtf8StillMakeValidJson) {
  std::vector<char> scratch;
  const std::string text = event_text({"t", "E:1", "bad\xff name", "d\xc3"});
  const ServerMessage m = read_back(text, Style::json_protocol, scratch);
  EXPECT_EQ(m.event, "bad\xef\xbf\xbd name");
  EXPECT_EQ(m.data, "d\xef\xbf\xbd");
}

TEST(WsJsonWriter, AFullSinkAnswersFalse) {
  char buffer[32];
  buf::FixedSink sink(buffer, sizeof buffer);
  EXPECT_FALSE(write_event(sink, {"topic", "E:1", "", "more than fits in thirty-two bytes"}));
  buf::FixedSink sink2(buffer, sizeof buffer);
  EXPECT_FALSE(write_dropped(sink2, Style::json_protocol, {"t", 1, "E:1", "E:1", "latest"}));
  buf::FixedSink sink3(buffer, sizeof buffer);
  EXPECT_TRUE(write_ack(sink3, {Req(1), true}));
}

TEST(WsJsonWriter, WritingAllocatesNothing) {
  const std::string bytes = every_byte();
  char buffer[4096];
  int ok = 0;
  const std::uint64_t before = test::allocations();
  for (int round = 0; round < 1000; ++round) {
    buf::FixedSink sink(buffer, sizeof buffer);
    ok += write_event(sink, {"t", "E:1", "e", kAwkward}) ? 1 : 0;
    ok += write_event(sink, {"t", "E:1", "e", bytes, true}) ? 1 : 0;
    ok += write_ack(sink, {Req(18446744073709551615u), true, "E:1", "E:0"}) ? 1 : 0;
    ok += write_dropped(sink, Style::raw_topic, {"t", 5, "E:1", "E:5", "latest"}) ? 1 : 0;
    ok += write_reset(sink, Style::bare, {"t", "too-old", "E:0"}) ? 1 : 0;
    ok += write_request(sink, {.op = Op::publish, .topic = "t", .data = kAwkward, .req = Req(9)}) ? 1 : 0;
  }
  const std::uint64_t allocated = test::allocations() - before;
  EXPECT_EQ(allocated, 0u);
  EXPECT_EQ(ok, 6000);
}

}  // namespace
}  // namespace sluice::proto::wsjson
