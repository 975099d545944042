#include "ws_topics.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "proto/ws_json.hpp"

namespace sluice::client::detail {
namespace {

// The requests WsTopics sends, read with the server's half of the codec.
class Sent final : public JsonSink {
 public:
  void send_json(std::string_view json) override {
    texts.emplace_back(json);
    (void)read(texts.size() - 1);
  }
  std::string field(std::size_t i, std::string_view key) const {
    const proto::wsjson::Request r = read(i);
    if (key == "op") return std::string(proto::wsjson::op_name(r.op));
    if (key == "topic") return std::string(r.topic);
    if (key == "since") return std::string(r.since);
    if (key == "policy") return std::string(r.policy);
    if (key == "data") return std::string(r.data);
    if (key == "req") return std::string(r.req.text());
    ADD_FAILURE() << "no field " << key;
    return {};
  }
  std::vector<std::string> texts;

 private:
  proto::wsjson::Request read(std::size_t i) const {
    const std::string& text = texts.at(i);
    scratch_.resize(text.size());
    proto::wsjson::Request r;
    const proto::wsjson::ReadResult result = proto::wsjson::read_request(text, {}, scratch_, r);
    EXPECT_TRUE(result.ok()) << result.reason << ": " << text;
    return r;
  }
  mutable std::vector<char> scratch_;
};

WsRequest request(WsRequest::Op op, std::string topic, std::uint64_t req) {
  WsRequest r;
  r.op = op;
  r.topic = std::move(topic);
  r.req = req;
  return r;
}

proto::wsjson::ServerMessage ack(std::uint64_t req, bool ok, std::string_view id = {}, std::string_view error = {}) {
  proto::wsjson::ServerMessage m;
  m.op = proto::wsjson::ServerOp::ack;
  m.req = proto::wsjson::Req(req);
  m.ok = ok;
  m.id = id;
  m.error = error;
  return m;
}

proto::wsjson::ServerMessage subscribed(std::uint64_t req, std::string_view last_id) {
  proto::wsjson::ServerMessage m = ack(req, true);
  m.last_id = last_id;
  return m;
}

struct Fixture {
  Fixture() : requests(16, 1 << 20), topics(requests) {}
  // Queues a request through WsRequests, as the application would.
  WsRequest submit(WsRequest::Op op, std::string topic) {
    const Submit s = requests.push(request(op, topic, 0));
    EXPECT_EQ(s.status, SubmitStatus::queued);
    return request(op, std::move(topic), s.req);
  }
  WsRequests requests;
  WsTopics topics;
  Sent sent;
  Event event;
};

TEST(WsTopics, SubscribeIsSentAndItsAckReachesTheApplication) {
  Fixture f;
  WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  sub.since = "E:4";
  sub.policy = "latest";
  EXPECT_FALSE(f.topics.apply(sub, f.sent, f.event));
  ASSERT_EQ(f.sent.texts.size(), 1u);
  EXPECT_EQ(f.sent.field(0, "op"), "subscribe");
  EXPECT_EQ(f.sent.field(0, "since"), "E:4");
  EXPECT_EQ(f.sent.field(0, "policy"), "latest");
  ASSERT_TRUE(f.topics.on_ack(ack(sub.req, true), f.event));
  EXPECT_EQ(f.event.kind, EventKind::ack);
  EXPECT_EQ(f.event.type, "subscribe");
  EXPECT_EQ(f.event.topic, "a");
  EXPECT_TRUE(f.event.ok);
  EXPECT_FALSE(f.topics.on_ack(ack(sub.req, true), f.event));  // answered once only
  EXPECT_EQ(f.topics.last_id("a"), "E:4");
}

TEST(WsTopics, ResubscribesFromTheLastIdAndKeepsInternalAcksToItself) {
  Fixture f;
  const WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  (void)f.topics.apply(sub, f.sent, f.event);
  ASSERT_TRUE(f.topics.on_ack(ack(sub.req, true), f.event));
  f.topics.on_event("a", "E:9");
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);
  EXPECT_TRUE(lost.empty());
  f.topics.resubscribe(f.sent);
  ASSERT_EQ(f.sent.texts.size(), 2u);
  EXPECT_EQ(f.sent.field(1, "since"), "E:9");
  const std::uint64_t internal = std::stoull(f.sent.field(1, "req"));
  EXPECT_NE(internal, sub.req);
  EXPECT_FALSE(f.topics.on_ack(ack(internal, true), f.event));
  EXPECT_FALSE(f.topics.on_ack(ack(internal, false, {}, "nope"), f.event));  // answered already
}

TEST(WsTopics, AFailedReSubscriptionIsReportedAndEndsTheSubscription) {
  Fixture f;
  const WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  (void)f.topics.apply(sub, f.sent, f.event);
  ASSERT_TRUE(f.topics.on_ack(ack(sub.req, true), f.event));
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);
  f.topics.resubscribe(f.sent);
  const std::uint64_t internal = std::stoull(f.sent.field(1, "req"));
  ASSERT_TRUE(f.topics.on_ack(ack(internal, false, {}, "topic limit reached"), f.event));
  EXPECT_FALSE(f.event.ok);
  EXPECT_EQ(f.event.data, "topic limit reached");
  EXPECT_EQ(f.topics.topic_count(), 0u);
}

TEST(WsTopics, AnUnansweredSubscribeIsAnsweredByItsResubscription) {
  Fixture f;
  const WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  (void)f.topics.apply(sub, f.sent, f.event);
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);
  EXPECT_TRUE(lost.empty());
  f.topics.resubscribe(f.sent);
  EXPECT_EQ(f.sent.field(1, "req"), std::to_string(sub.req));
  ASSERT_TRUE(f.topics.on_ack(ack(sub.req, true), f.event));
  EXPECT_EQ(f.event.req, sub.req);
}

TEST(WsTopics, LostPublishesAreAckedAsUnknownAndLostUnsubscribesAsDone) {
  Fixture f;
  (void)f.topics.apply(f.submit(WsRequest::Op::subscribe, "a"), f.sent, f.event);
  const WsRequest pub = f.submit(WsRequest::Op::publish, "a");
  const WsRequest unsub = f.submit(WsRequest::Op::unsubscribe, "a");
  (void)f.topics.apply(pub, f.sent, f.event);
  (void)f.topics.apply(unsub, f.sent, f.event);
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);
  ASSERT_EQ(lost.size(), 2u);
  EXPECT_EQ(lost[0].req, pub.req);
  EXPECT_FALSE(lost[0].ok);
  EXPECT_NE(lost[0].data.find("before the server answered"), std::string::npos);
  EXPECT_EQ(lost[1].req, unsub.req);
  EXPECT_TRUE(lost[1].ok);
  EXPECT_EQ(f.topics.topic_count(), 0u);
}

TEST(WsTopics, ASupersededSubscribeStillGetsItsOneAck) {
  Fixture f;
  const WsRequest first = f.submit(WsRequest::Op::subscribe, "a");
  (void)f.topics.apply(first, f.sent, f.event);
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);  // `first` now waits for the next connection
  ASSERT_TRUE(f.topics.apply(f.submit(WsRequest::Op::unsubscribe, "a"), f.sent, f.event));
  EXPECT_EQ(f.event.req, first.req);
  EXPECT_FALSE(f.event.ok);
}

// The server refuses a second subscribe to a topic; the client answers it
// so itself, and the first subscription goes on as it was.
TEST(WsTopics, ASecondSubscribeToAFollowedTopicIsRefusedHereAndTheFirstKept) {
  Fixture f;
  WsRequest first = f.submit(WsRequest::Op::subscribe, "a");
  first.policy = "fifo";
  (void)f.topics.apply(first, f.sent, f.event);
  ASSERT_TRUE(f.topics.on_ack(subscribed(first.req, "E:3"), f.event));
  WsRequest second = f.submit(WsRequest::Op::subscribe, "a");
  second.policy = "latest";
  ASSERT_TRUE(f.topics.apply(second, f.sent, f.event));
  EXPECT_EQ(f.event.req, second.req);
  EXPECT_FALSE(f.event.ok);
  EXPECT_NE(f.event.data.find("already subscribed"), std::string::npos) << f.event.data;
  EXPECT_EQ(f.sent.texts.size(), 1u);
  EXPECT_EQ(f.topics.topic_count(), 1u);
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);
  f.topics.resubscribe(f.sent);
  ASSERT_EQ(f.sent.texts.size(), 2u);
  EXPECT_EQ(f.sent.field(1, "policy"), "fifo");
  EXPECT_EQ(f.sent.field(1, "since"), "E:3");
}

TEST(WsTopics, UndoPutsBackThePreviousId) {
  Fixture f;
  WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  sub.since = "E:1";
  (void)f.topics.apply(sub, f.sent, f.event);
  f.topics.on_event("a", "E:2");
  f.topics.on_event("a", "E:3");
  f.topics.undo_event("a");
  EXPECT_EQ(f.topics.last_id("a"), "E:2");
}

TEST(WsTopics, TheSubscribeAcksLastIdIsWhereATopicWithNoEventResumes) {
  Fixture f;
  const WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  (void)f.topics.apply(sub, f.sent, f.event);
  EXPECT_EQ(f.sent.field(0, "since"), "");
  ASSERT_TRUE(f.topics.on_ack(subscribed(sub.req, "E:7"), f.event));
  EXPECT_EQ(f.topics.last_id("a"), "E:7");
  std::vector<Event> lost;
  f.topics.on_disconnect(lost);
  f.topics.resubscribe(f.sent);
  EXPECT_EQ(f.sent.field(1, "since"), "E:7");  // E:8 on, published while nothing arrived, is replayed
  // Once an event arrived, its id is the resume point; a later ack's does not move it.
  const std::uint64_t internal = std::stoull(f.sent.field(1, "req"));
  f.topics.on_event("a", "E:9");
  EXPECT_FALSE(f.topics.on_ack(subscribed(internal, "E:12"), f.event));
  EXPECT_EQ(f.topics.last_id("a"), "E:9");
}

TEST(WsTopics, AGivenSinceIsKeptOverTheSubscribeAcksLastId) {
  Fixture f;
  WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  sub.since = "E:2";
  (void)f.topics.apply(sub, f.sent, f.event);
  ASSERT_TRUE(f.topics.on_ack(subscribed(sub.req, "E:7"), f.event));
  EXPECT_EQ(f.topics.last_id("a"), "E:2");  // E:3 to E:7 are on their way as a replay
}

TEST(WsTopics, AcksThatAreNotForANumberedRequestAreIgnored) {
  Fixture f;
  const WsRequest sub = f.submit(WsRequest::Op::subscribe, "a");
  (void)f.topics.apply(sub, f.sent, f.event);
  proto::wsjson::ServerMessage stray = ack(sub.req, true);
  stray.req = {};
  EXPECT_FALSE(f.topics.on_ack(stray, f.event));
  ASSERT_TRUE(f.topics.on_ack(ack(sub.req, true), f.event));
}

TEST(WsProtocol, EncodesRequests) {
  WsRequest pub = request(WsRequest::Op::publish, "t", 7);
  pub.data = "a\"b\n";
  pub.event = "e";
  std::string json;
  encode_request(pub, json);
  EXPECT_EQ(json, R"({"op":"publish","topic":"t","data":"a\"b\n","event":"e","req":7})");
  json.clear();
  encode_subscribe("t", "E:1", "", 18446744073709551615u, json);
  EXPECT_EQ(json, R"({"op":"subscribe","topic":"t","since":"E:1","req":18446744073709551615})");
}

TEST(WsProtocol, TopicNames) {
  EXPECT_TRUE(is_valid_topic("a.b:c-d_e9"));
  EXPECT_TRUE(is_valid_topic(std::string(1024, 'x')));  // a server may be configured this long
  EXPECT_FALSE(is_valid_topic(std::string(1025, 'x')));
  EXPECT_FALSE(is_valid_topic(""));
  EXPECT_FALSE(is_valid_topic("a b"));
  EXPECT_FALSE(is_valid_topic("a/b"));
}

}  // namespace
}  // namespace sluice::client::detail
