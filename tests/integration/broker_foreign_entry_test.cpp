// Anything that reaches Redis can write a topic's stream. An entry no sluice
// publisher could have sent (an event name with a line break, which would
// add lines of its own to every SSE subscriber's stream, or the name of the
// server's own notices, which would forge a loss or a reset), and one this
// node cannot use (no data field; data larger than its own largest event,
// as a node with larger limits publishes) is passed over as lost, told by
// the stream's ids, on the live path and on a replay from Redis alike; the
// topic goes on. A real redis-server and a real sluiced.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_nodes.hpp"

namespace sluice::test {
namespace {

// The Redis id of the stream's newest entry ("MS-SEQ").
std::string newest_entry(const RedisServer& redis, const std::string& key) {
  const ReplyPtr newest = redis.command({"XREVRANGE", key, "+", "-", "COUNT", "1"});
  if (!newest || newest->type != REDIS_REPLY_ARRAY || newest->elements != 1) return {};
  const redisReply* id = newest->element[0]->element[0];
  return std::string(id->str, id->len);
}

// sluice_broker_unusable_entries_total once it reaches `at_least` (the
// reader's count reaches the metrics at the loop's next sweep), or as it
// stands after 10 s.
std::uint64_t unusable_counted(const SluicedProcess& node, std::uint64_t at_least) {
  const std::string name = "\nsluice_broker_unusable_entries_total ";
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  std::uint64_t counted = 0;
  while (true) {
    const std::string metrics = http_request(node.port(), "GET", "/metrics").body;
    const std::size_t at = metrics.find(name);
    counted = at == std::string::npos ? 0 : std::stoull(metrics.substr(at + name.size()));
    if (counted >= at_least || std::chrono::steady_clock::now() >= deadline) return counted;
    std::this_thread::sleep_for(20ms);  // a poll's pace, not a wait for anything
  }
}

class BrokerForeignEntry : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.ok()) << redis_.error();
    std::vector<std::string> settings = node_settings(redis_);
    settings.emplace_back("threads=1");
    node_ = std::make_unique<SluicedProcess>(settings);
    ASSERT_NE(node_->port(), 0) << node_->output();
  }

  // Writes four entries after the stream's newest, as something else on
  // Redis could: `forged` data under an event name that would break the
  // framing, then under the name of a notice, then none at all, then more
  // than the node takes. `newest_id` is the id a subscriber got for the
  // newest ("EPOCH:SEQ"); returns the first forged entry's id in that form.
  std::string write_foreign_entries(const std::string& newest_id) {
    const std::string newest = newest_entry(redis_, "sluice:t");
    if (newest.empty() || newest_id.find(':') == std::string::npos) return {};
    const std::string ms = newest.substr(0, newest.find('-'));
    const std::uint64_t seq = std::stoull(newest.substr(newest.find('-') + 1));
    if (seq != seq_of(newest_id)) return {};
    const std::vector<std::vector<std::string>> entries = {{"d", "forged", "e", "x\ndata: injected", "k", ""},
                                                           {"d", "forged", "e", "sluice-reset", "k", ""},
                                                           {"e", "forged", "k", ""},
                                                           {"d", std::string((1 << 20) + 1, 'f'), "e", "", "k", ""}};
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::vector<std::string> command = {"XADD", "sluice:t", ms + "-" + std::to_string(seq + 1 + i)};
      command.insert(command.end(), entries[i].begin(), entries[i].end());
      if (!redis_.command(command)) return {};
    }
    return newest_id.substr(0, newest_id.find(':') + 1) + std::to_string(seq + 1);
  }

  RedisServer redis_;
  std::unique_ptr<SluicedProcess> node_;
};

// What follows `first_forged`'s four entries: all told as lost by their
// ids (in one notice or, when the replay and the live stream each meet
// some, in more), then `after`, and nothing forged.
void expect_passed_over(const std::vector<SseSubscriber::Event>& got, const std::string& first_forged,
                        const std::string& after, const std::string& who) {
  std::uint64_t told = 0;
  std::string first_told;
  bool after_seen = false;
  for (const auto& e : got) {
    EXPECT_EQ(e.data.find("forged"), std::string::npos) << who << ": " << e.type << " " << e.data;
    EXPECT_EQ(e.data.find("fff"), std::string::npos) << who << ": the entry over the node's limit";
    EXPECT_EQ(e.data.find("injected"), std::string::npos) << who << ": " << e.data;
    EXPECT_NE(e.type, "sluice-reset") << who << ": " << e.data;
    if (e.type == "sluice-dropped") {
      if (first_told.empty()) first_told = field_of(e.data, "first_id");
      const std::size_t at = e.data.find("\"dropped\":");
      if (at != std::string::npos) told += std::stoull(e.data.substr(at + 10));
      EXPECT_FALSE(after_seen) << who << ": the loss is told before what follows it";
    }
    after_seen = after_seen || e.data == after;
  }
  EXPECT_EQ(told, 4U) << who << ": the entries passed over are told as lost";
  EXPECT_EQ(first_told, first_forged) << who;
  EXPECT_TRUE(after_seen) << who;
}

TEST_F(BrokerForeignEntry, ALiveSubscriberIsToldOfItAsLostAndSeesNothingOfIt) {
  auto live = once_read(*node_, *node_, "t");
  ASSERT_NE(live, nullptr) << "the node reads t";
  const std::string first_forged = write_foreign_entries(live->events().back().id);
  ASSERT_FALSE(first_forged.empty());
  ASSERT_EQ(publish_on(*node_, "t", "after").status, 200);
  ASSERT_TRUE(wait_data(*live, "after", 10s)) << "the event after";
  expect_passed_over(events_of(*live), first_forged, "after", "live");
  EXPECT_EQ(unusable_counted(*node_, 2), 2u) << "the two it could not use at all, counted for an alert to see";
}

// A client resuming from before the entries, older than the node keeps
// (it has not read the topic since), has them fetched from Redis.
TEST_F(BrokerForeignEntry, AReplayFromRedisPassesOverItToo) {
  auto first = once_read(*node_, *node_, "t");
  ASSERT_NE(first, nullptr) << "the node reads t";
  const std::string resume_from = first->events().back().id;
  first.reset();
  const std::string first_forged = write_foreign_entries(resume_from);
  ASSERT_FALSE(first_forged.empty());
  ASSERT_EQ(publish_on(*node_, "t", "after").status, 200);
  SseSubscriber resumed(static_cast<std::uint16_t>(node_->port()), "/sse/t", 0, resume_from);
  ASSERT_TRUE(resumed.opened());
  ASSERT_TRUE(wait_data(resumed, "after", 10s)) << "the event after";
  expect_passed_over(events_of(resumed), first_forged, "after", "resumed");
  EXPECT_GE(unusable_counted(*node_, 2), 2u) << "met in the replay from Redis, or by the reader: counted";
}

}  // namespace
}  // namespace sluice::test
