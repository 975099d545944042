#include "proto/ws_json.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <vector>

#include "alloc_counter.hpp"

namespace sluice::proto::wsjson {
namespace {

struct Read {
  ReadResult result;
  Request request;
  std::vector<char> scratch;
};

// The request is read into its own scratch, which `r` keeps alive.
void read(std::string_view text, Read& r, const Limits& limits = {}) {
  r.scratch.assign(text.size(), '\0');
  r.result = read_request(text, limits, r.scratch, r.request);
}

Error error_of(std::string_view text, const Limits& limits = {}) {
  Read r;
  read(text, r, limits);
  EXPECT_NE(std::string_view(r.result.reason).empty(), !r.result.ok()) << text;
  return r.result.error;
}

std::string req_of(std::string_view text) {
  Read r;
  read(text, r);
  return std::string(r.request.req.text());
}

TEST(WsJsonRequest, ReadsEachOp) {
  Read r;
  read(R"({"op":"subscribe","topic":"prices","since":"mx3d1k2a:41","policy":"latest","req":1})", r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.request.op, Op::subscribe);
  EXPECT_EQ(r.request.topic, "prices");
  EXPECT_EQ(r.request.since, "mx3d1k2a:41");
  EXPECT_EQ(r.request.policy, "latest");
  EXPECT_EQ(r.request.req.text(), "1");
  EXPECT_EQ(r.request.data, "");

  read(R"({"op":"unsubscribe","topic":"prices"})", r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.request.op, Op::unsubscribe);
  EXPECT_FALSE(r.request.req.present());

  read(R"({"op":"publish","topic":"chat","data":"hi \"you\"","event":"msg","key":"room-1","token":"t0k","req":"a"})",
       r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.request.op, Op::publish);
  EXPECT_EQ(r.request.data, "hi \"you\"");
  EXPECT_EQ(r.request.event, "msg");
  EXPECT_EQ(r.request.key, "room-1");
  EXPECT_EQ(r.request.token, "t0k");
  EXPECT_EQ(r.request.req.text(), "\"a\"");

  read(R"({"op":"publish","topic":"t","data":""})", r);  // empty data is an empty event
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.request.data, "");

  read(R"({"op":"refresh","token":"h.p.s","req":9})", r);  // names no topic
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.request.op, Op::refresh);
  EXPECT_EQ(r.request.token, "h.p.s");
  EXPECT_EQ(r.request.topic, "");
  EXPECT_EQ(r.request.req.text(), "9");
}

TEST(WsJsonRequest, ReqIsKeptAsWritten) {
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":9223372036854775809})"), "9223372036854775809");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":18446744073709551617})"), "18446744073709551617");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":-1.5e300})"), "-1.5e300");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":0.10})"), "0.10");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":true})"), "true");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":false})"), "false");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":null})"), "null");
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":"a\u0022\n"})"), R"("a\u0022\n")");
  const std::string longest(Req::kMaxStringBytes, 'r');
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":")" + longest + "\"}"), "\"" + longest + "\"");
  const std::string digits(Req::kMaxNumberChars, '7');
  EXPECT_EQ(req_of(R"({"op":"unsubscribe","topic":"t","req":)" + digits + "}"), digits);
}

TEST(WsJsonRequest, AReqThatIsNotAShortScalarIsRefusedAndNotEchoed) {
  const std::string too_long(Req::kMaxStringBytes + 1, 'r');
  Limits wide;
  wide.max_number_chars = 64;
  const std::string digits(Req::kMaxNumberChars + 1, '7');
  for (const std::string& text :
       {std::string(R"({"op":"subscribe","topic":"t","req":{"a":1}})"),
        std::string(R"({"op":"subscribe","topic":"t","req":[1]})"),
        std::string(R"({"op":"subscribe","topic":"t","req":"\u0041)") + std::string(60, 'x') + "\"}",
        R"({"op":"subscribe","topic":"t","req":")" + too_long + "\"}",
        R"({"op":"subscribe","topic":"t","req":)" + digits + "}"}) {
    Read r;
    read(text, r, wide);
    EXPECT_EQ(r.result.error, Error::bad_req) << text;
    EXPECT_FALSE(r.request.req.present()) << text;
    EXPECT_NE(std::string_view(r.result.reason).find("\"req\" must be"), std::string_view::npos);
  }
  // Past the reader's own number limit it is that limit that answers.
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","req":)" + digits + "}"), Error::number_too_long);
}

TEST(WsJsonRequest, ADuplicateReqIsEchoedAsNull) {
  Read r;
  read(R"({"req":1,"op":"subscribe","topic":"t","req":2})", r);
  EXPECT_EQ(r.result.error, Error::duplicate);
  EXPECT_FALSE(r.request.req.present());
}

TEST(WsJsonRequest, AnErrorFoundAfterReqStillNamesTheRequest) {
  EXPECT_EQ(req_of(R"({"req":7,"op":"nope","topic":"t"})"), "7");
  EXPECT_EQ(req_of(R"({"req":7,"op":"subscribe","topic":"t",)"), "7");
  EXPECT_EQ(req_of(R"({"req":7,"op":"publish","topic":"t","data":5})"), "7");
  EXPECT_EQ(req_of(R"({"op":"publish","topic":5,"req":7})"), "");  // the error came first
}

// The input that overflowed the stack when `req` was re-serialised from a
// document tree, read on a thread with a 256 KiB stack: a reader that
// recursed per level would need far more.
struct SmallStackRun {
  std::string text;
  Limits limits;
  Read r;
};

void* run_read(void* arg) {
  auto* run = static_cast<SmallStackRun*>(arg);
  read(run->text, run->r, run->limits);
  return nullptr;
}

void read_on_small_stack(SmallStackRun& run) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, std::size_t{256} << 10), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, run_read, &run), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
}

TEST(WsJsonRequest, HundredThousandBracketsInReqAreAnErrorNotACrash) {
  SmallStackRun run;
  run.text = R"({"op":"x","req":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  read_on_small_stack(run);
  EXPECT_EQ(run.r.result.error, Error::bad_req);
  EXPECT_FALSE(run.r.request.req.present());
}

TEST(WsJsonRequest, HundredThousandBracketsElsewhereStopAtTheDepthLimit) {
  SmallStackRun run;
  run.text = R"({"op":"subscribe","topic":"t","x":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  run.limits.max_depth = 64;
  read_on_small_stack(run);
  EXPECT_EQ(run.r.result.error, Error::too_deep);
}

TEST(WsJsonRequest, MillionByteStrings) {
  const std::string million(1'000'000, 'x');
  Limits limits;
  limits.max_string_bytes = 1 << 16;
  limits.max_message_bytes = 2 << 20;
  EXPECT_EQ(error_of(R"({"op":"x","req":")" + million + "\"}", limits), Error::string_too_long);
  EXPECT_EQ(error_of(R"({"op":"x","req":")" + million + "\"}"), Error::bad_req);
  EXPECT_EQ(error_of(R"({"op":"publish","topic":"t","data":")" + million + "\"}", limits), Error::string_too_long);
  Read r;
  read(R"({"op":"publish","topic":"t","data":")" + million + "\"}", r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.request.data.size(), million.size());
}

TEST(WsJsonRequest, EveryLimitHasItsError) {
  Limits limits;
  limits.max_message_bytes = 64;
  EXPECT_EQ(error_of(R"({"op":"publish","topic":"t","data":")" + std::string(40, 'x') + "\"}", limits),
            Error::too_large);
  limits = {};
  limits.max_depth = 2;
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","x":[1]})", limits), Error::none);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","x":[[1]]})", limits), Error::too_deep);
  limits = {};
  limits.max_string_bytes = 9;  // "subscribe"
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"topic1234"})", limits), Error::none);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"topic12345"})", limits), Error::string_too_long);
  limits = {};
  limits.max_number_chars = 3;
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","req":123})", limits), Error::none);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","req":1234})", limits), Error::number_too_long);
  limits = {};
  limits.max_members = 3;
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","req":1})", limits), Error::none);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","req":1,"x":0})", limits), Error::too_many_members);
  Request request;
  char scratch[2];
  EXPECT_EQ(read_request(R"({"op":"subscribe","topic":"\u0041\u0042\u0043"})", {}, scratch, request).error,
            Error::no_room);
}

TEST(WsJsonRequest, KnownMembersHaveTypes) {
  EXPECT_EQ(error_of(R"({"op":"publish","topic":"t","data":5})"), Error::wrong_type);
  EXPECT_EQ(error_of(R"({"op":"publish","topic":"t","data":null})"), Error::wrong_type);
  EXPECT_EQ(error_of(R"({"op":"publish","topic":"t","data":{"x":1}})"), Error::wrong_type);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":null})"), Error::wrong_type);
  EXPECT_EQ(error_of(R"({"op":1,"topic":"t"})"), Error::wrong_type);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","since":3})"), Error::wrong_type);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t","token":[]})"), Error::wrong_type);
  Read r;
  read(R"({"op":"publish","topic":"t","data":5})", r);
  EXPECT_STREQ(r.result.reason, "\"data\" must be a string");
}

TEST(WsJsonRequest, DuplicateKnownMembersAreRefusedUnknownOnesSkipped) {
  Read r;
  read(R"({"op":"subscribe","topic":"a","topic":"b"})", r);
  EXPECT_EQ(r.result.error, Error::duplicate);
  EXPECT_STREQ(r.result.reason, "\"topic\" appears twice");
  EXPECT_EQ(error_of(R"({"op":"subscribe","\u0074opic":"a","topic":"b"})"), Error::duplicate);
  read(R"({"op":"subscribe","x":1,"topic":"a","x":{"y":[true,null,"z"]},"x":"again"})", r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.request.topic, "a");
}

TEST(WsJsonRequest, UnknownMembersAreCheckedAsJson) {
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"a","x":{"y":["\ud800"]}})"), Error::not_json);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"a","x":01})"), Error::not_json);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"a","x":[1,]})"), Error::not_json);
}

TEST(WsJsonRequest, WhatEachOpNeeds) {
  EXPECT_EQ(error_of(R"({"topic":"t"})"), Error::missing);
  EXPECT_EQ(error_of(R"({"op":"publish","data":"d"})"), Error::missing);
  EXPECT_EQ(error_of(R"({"op":"subscribe"})"), Error::missing);
  EXPECT_EQ(error_of(R"({"op":"publish","topic":"t"})"), Error::missing);
  EXPECT_EQ(error_of(R"({"op":"Subscribe","topic":"t"})"), Error::unknown_op);
  EXPECT_EQ(error_of(R"({"op":"","topic":"t"})"), Error::unknown_op);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":""})"), Error::none);  // the server judges the name
  Read r;
  read(R"({"op":"publish","topic":"t"})", r);
  EXPECT_STREQ(r.result.reason, "a publish needs \"data\"");
  // A refresh is judged by its token alone, so it needs one that says something.
  for (const char* no_token : {R"({"op":"refresh","req":3})", R"({"op":"refresh","token":"","req":3})"}) {
    read(no_token, r);
    EXPECT_EQ(r.result.error, Error::missing) << no_token;
    EXPECT_STREQ(r.result.reason, "a refresh needs \"token\"");
    EXPECT_EQ(r.request.req.text(), "3");
  }
  EXPECT_EQ(error_of(R"({"op":"refresh","token":7})"), Error::wrong_type);
}

TEST(WsJsonRequest, BrokenJsonComesBeforeTheProtocolsRules) {
  EXPECT_EQ(error_of(R"({"op":"nope","topic":"t"} x)"), Error::not_json);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t"}})"), Error::not_json);
  EXPECT_EQ(error_of(R"({"op":"subscribe","topic":"t",})"), Error::not_json);
  EXPECT_EQ(error_of(R"([{"op":"subscribe","topic":"t"}])"), Error::not_object);
  EXPECT_EQ(error_of(""), Error::not_object);
  Read r;
  read(R"({"op":"subscribe","topic":"t"} x)", r);
  EXPECT_STREQ(r.result.reason, "not JSON: bytes after the end of the object");
}

TEST(WsJsonRequest, ReadingAllocatesNothing) {
  const std::string texts[] = {
      R"({"op":"publish","topic":"chat","data":"a \"quoted\" \u00e9 line\n","event":"e","key":"k","req":12})",
      R"({"op":"subscribe","topic":"t","since":"E:1","x":{"deep":[1,2,{"y":null}]},"req":"s"})",
      R"({"op":"subscribe","topic":"t","req":[[[[]]]]})",
      R"({"op":1})",
  };
  char scratch[256];
  Request request;
  int ok = 0;
  const std::uint64_t before = test::allocations();
  for (int round = 0; round < 1000; ++round) {
    for (const std::string& text : texts) ok += read_request(text, {}, scratch, request).ok() ? 1 : 0;
  }
  const std::uint64_t allocated = test::allocations() - before;
  EXPECT_EQ(allocated, 0u);
  EXPECT_EQ(ok, 2000);
}

// Server messages, as the client reads them.

struct ReadServer {
  ReadResult result;
  ServerMessage message;
  std::vector<char> scratch;
};

void read(std::string_view text, Style style, ReadServer& r) {
  r.scratch.assign(text.size(), '\0');
  r.result = read_server_message(text, style, {}, r.scratch, r.message);
}

TEST(WsJsonServerMessage, Events) {
  ReadServer r;
  read(R"({"op":"event","topic":"prices","id":"mx3d1k2a:42","event":"tick","data":"{\"p\":101}"})",
       Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.message.op, ServerOp::event);
  EXPECT_EQ(r.message.topic, "prices");
  EXPECT_EQ(r.message.id, "mx3d1k2a:42");
  EXPECT_EQ(r.message.event, "tick");
  EXPECT_EQ(r.message.data, "{\"p\":101}");
  EXPECT_FALSE(r.message.binary);

  read(R"({"op":"event","topic":"t","id":"E:3","data_b64":"AP8="})", Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.message.data, std::string_view("\x00\xff", 2));
  EXPECT_TRUE(r.message.binary);

  read(R"({"op":"event","topic":"t","id":"E:3","data_b64":"AP\/+"})", Style::json_protocol, r);  // escaped '/'
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.message.data, std::string_view("\x00\xff\xfe", 3));

  read(R"({"op":"event","topic":"t","id":"E:3","data_b64":"AP8"})", Style::json_protocol, r);
  EXPECT_EQ(r.result.error, Error::bad_base64);
  read(R"({"op":"event","topic":"t","id":"E:3","data":"x","data_b64":"AP8="})", Style::json_protocol, r);
  EXPECT_EQ(r.result.error, Error::duplicate);
  read(R"({"op":"event","topic":"t","id":"E:3"})", Style::json_protocol, r);
  EXPECT_EQ(r.result.error, Error::missing);
}

TEST(WsJsonServerMessage, AcksAndNotices) {
  ReadServer r;
  read(R"({"op":"ack","req":18446744073709551615,"ok":true,"last_id":"E:0"})", Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.message.op, ServerOp::ack);
  std::uint64_t req = 0;
  ASSERT_TRUE(r.message.req.to_u64(req));
  EXPECT_EQ(req, 18446744073709551615u);
  EXPECT_TRUE(r.message.ok);
  EXPECT_EQ(r.message.last_id, "E:0");

  read(R"({"op":"ack","req":"x","ok":false,"error":"bad topic name"})", Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok());
  EXPECT_FALSE(r.message.req.to_u64(req));
  EXPECT_FALSE(r.message.ok);
  EXPECT_EQ(r.message.error, "bad topic name");
  read(R"({"op":"ack","req":1})", Style::json_protocol, r);
  EXPECT_EQ(r.result.error, Error::missing);
  read(R"({"op":"ack","req":1,"ok":"yes"})", Style::json_protocol, r);
  EXPECT_EQ(r.result.error, Error::wrong_type);

  read(R"({"op":"dropped","topic":"p","dropped":12,"first_id":"E:50","last_id":"E:61","policy":"latest"})",
       Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.message.op, ServerOp::dropped);
  EXPECT_EQ(r.message.dropped, 12u);
  EXPECT_EQ(r.message.first_id, "E:50");
  EXPECT_EQ(r.message.policy, "latest");
  for (const char* bad : {R"({"op":"dropped","dropped":1.5})", R"({"op":"dropped","dropped":-1})",
                          R"({"op":"dropped","dropped":1e3})", R"({"op":"dropped","dropped":"3"})",
                          R"({"op":"dropped","dropped":18446744073709551616})"}) {
    read(bad, Style::json_protocol, r);
    EXPECT_EQ(r.result.error, Error::wrong_type) << bad;
  }

  read(R"({"op":"reset","topic":"p","reason":"too-old","last_id":"E:3"})", Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.message.op, ServerOp::reset);
  EXPECT_EQ(r.message.reason, "too-old");

  read(R"({"op":"hello","anything":[1]})", Style::json_protocol, r);
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.message.op, ServerOp::other);
  read(R"({"topic":"t"})", Style::json_protocol, r);
  EXPECT_EQ(r.result.error, Error::missing);
}

TEST(WsJsonServerMessage, TheKindMemberFollowsTheStyle) {
  ReadServer r;
  read(R"({"sluice":"reset","topic":"p","reason":"other-epoch","last_id":"X:3"})", Style::raw_topic, r);
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.message.op, ServerOp::reset);
  read(R"({"op":"reset","topic":"p"})", Style::raw_topic, r);
  EXPECT_EQ(r.result.error, Error::missing);  // "op" is not the kind here
  read(R"({"topic":"p","dropped":4,"op":5})", Style::bare, r);
  ASSERT_TRUE(r.result.ok()) << r.result.reason;
  EXPECT_EQ(r.message.op, ServerOp::other);
  EXPECT_EQ(r.message.dropped, 4u);
}

}  // namespace
}  // namespace sluice::proto::wsjson
