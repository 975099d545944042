#include "broker/replies.hpp"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace sluice::broker {
namespace {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

// The tree hiredis builds from `bytes` (one whole reply).
ReplyPtr tree(const std::string& bytes) {
  redisReader* reader = redisReaderCreate();
  EXPECT_EQ(redisReaderFeed(reader, bytes.data(), bytes.size()), REDIS_OK);
  void* reply = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader, &reply), REDIS_OK);
  redisReaderFree(reader);
  EXPECT_NE(reply, nullptr) << bytes;
  return ReplyPtr(static_cast<redisReply*>(reply));
}

std::string bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }
std::string array(const std::vector<std::string>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& i : items) out += i;
  return out;
}
std::string entry(const std::string& id, const std::vector<std::string>& fields) {
  std::vector<std::string> f;
  for (const std::string& x : fields) f.push_back(bulk(x));
  return array({bulk(id), array(f)});
}

ReplyLimits limits(std::size_t streams, std::size_t entries) { return {streams, entries, 16, 1 << 20}; }

TEST(Replies, PublishedIdOrError) {
  const IdReply ok = parse_published(tree(bulk("1700000000000-3")).get());
  EXPECT_EQ(ok.status, ReplyStatus::ok);
  EXPECT_EQ(ok.id, (StreamId{1700000000000, 3}));
  const ReplyPtr error_tree = tree("-NOSCRIPT No matching script\r\n");
  const IdReply error = parse_published(error_tree.get());
  EXPECT_EQ(error.status, ReplyStatus::redis_error);
  EXPECT_EQ(error.error, "NOSCRIPT No matching script");
  EXPECT_EQ(parse_published(tree(bulk("17-")).get()).status, ReplyStatus::malformed);
  EXPECT_EQ(parse_published(tree(":5\r\n").get()).status, ReplyStatus::malformed);
  EXPECT_EQ(parse_published(nullptr).status, ReplyStatus::malformed);
}

TEST(Replies, NewestIsAnEntryOrNothing) {
  const NewestReply none = parse_newest(tree("*0\r\n").get());
  EXPECT_EQ(none.status, ReplyStatus::ok);
  EXPECT_FALSE(none.exists);
  const NewestReply one = parse_newest(tree(array({entry("9-4", {"d", "x"})})).get());
  EXPECT_EQ(one.status, ReplyStatus::ok);
  EXPECT_TRUE(one.exists);
  EXPECT_EQ(one.id, (StreamId{9, 4}));
  EXPECT_EQ(parse_newest(tree(array({entry("9-4", {}), entry("9-3", {})})).get()).status, ReplyStatus::malformed);
  EXPECT_EQ(parse_newest(tree("-WRONGTYPE Operation\r\n").get()).status, ReplyStatus::redis_error);
}

TEST(Replies, RangeGivesEntriesWithTheirFields) {
  std::vector<StreamEntry> out;
  const ReplyPtr reply = tree(
      array({entry("9-1", {"d", "one", "e", "price", "k", "eur"}), entry("9-2", {"k", "", "d", "two", "x", "?"})}));
  ASSERT_EQ(parse_range(reply.get(), limits(1, 10), out).status, ReplyStatus::ok);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, (StreamId{9, 1}));
  EXPECT_EQ(out[0].data, "one");
  EXPECT_EQ(out[0].event, "price");
  EXPECT_EQ(out[0].key, "eur");
  EXPECT_EQ(out[1].data, "two");
  EXPECT_EQ(out[1].event, "");
}

TEST(Replies, RangeRefusesWholeWhatIsNotOurs) {
  std::vector<StreamEntry> out;
  const std::pair<std::string, ReplyStatus> cases[] = {
      {array({entry("9-1", {"d"})}), ReplyStatus::malformed},                             // odd fields
      {array({entry("9-2", {"d", "a"}), entry("9-1", {"d", "b"})}), ReplyStatus::malformed},  // out of order
      {array({entry("9-1", {"d", "a"}), entry("9-1", {"d", "b"})}), ReplyStatus::malformed},  // repeated
      {array({entry("nine", {"d", "a"})}), ReplyStatus::malformed},
      {array({array({bulk("9-1")})}), ReplyStatus::malformed},
      {array({entry("9-1", {"d", "a"}), entry("9-2", {"d", "b"}), entry("9-3", {"d", "c"})}), ReplyStatus::over_limit},
      {":1\r\n", ReplyStatus::malformed},
  };
  for (const auto& [bytes, status] : cases) {
    ReplyLimits l = limits(1, 2);
    l.max_data = 64;
    l.max_fields = 3;
    EXPECT_EQ(parse_range(tree(bytes).get(), l, out).status, status) << bytes;
    EXPECT_TRUE(out.empty());
  }
}

// An entry of the right shape that this node cannot use keeps its place,
// marked: the reader goes past its id and tells the loss, where refusing
// the whole answer would have it read the same entry again forever.
TEST(Replies, AnEntryThisNodeCannotUseIsMarkedAndKeepsItsPlace) {
  std::vector<StreamEntry> out;
  ReplyLimits l = limits(1, 4);
  l.max_data = 64;
  l.max_fields = 2;
  const std::string bytes = array({entry("9-1", {"e", "x"}), entry("9-2", {"d", std::string(65, 'x')}),
                                   entry("9-3", {"d", "a", "e", "b", "k", "c"}), entry("9-4", {"d", "fine"})});
  const ReplyPtr reply = tree(bytes);  // the entries point into it
  ASSERT_EQ(parse_range(reply.get(), l, out).status, ReplyStatus::ok);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_STREQ(out[0].unusable, "no data field");
  EXPECT_STREQ(out[1].unusable, "data over this node's largest event");
  EXPECT_TRUE(out[1].data.empty());
  EXPECT_STREQ(out[2].unusable, "more fields than an entry may have");
  EXPECT_EQ(out[3].unusable, nullptr);
  EXPECT_EQ(out[3].data, "fine");
  EXPECT_EQ(out[2].id, (StreamId{9, 3}));
}

TEST(Replies, ReadGivesEachStreamsEntriesUnderItsTopic) {
  std::vector<TopicEntry> out;
  const ReplyPtr reply =
      tree(array({array({bulk("p:a"), array({entry("5-1", {"d", "x"}), entry("5-2", {"d", "y"})})}),
                  array({bulk("p:b"), array({entry("6-9", {"d", "z"})})})}));
  ASSERT_EQ(parse_read(reply.get(), "p:", limits(2, 2), out).status, ReplyStatus::ok);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].topic, "a");
  EXPECT_EQ(out[1].entry.id, (StreamId{5, 2}));
  EXPECT_EQ(out[2].topic, "b");
  EXPECT_EQ(out[2].entry.data, "z");
}

TEST(Replies, ReadNilIsNoEntries) {
  std::vector<TopicEntry> out{{"stale", {}}};
  EXPECT_EQ(parse_read(tree("*-1\r\n").get(), "p:", limits(1, 1), out).status, ReplyStatus::ok);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(parse_read(tree("$-1\r\n").get(), "p:", limits(1, 1), out).status, ReplyStatus::ok);
}

TEST(Replies, ReadRefusesForeignKeysAndExcess) {
  std::vector<TopicEntry> out;
  const std::string one = array({bulk("p:a"), array({entry("5-1", {"d", "x"})})});
  const std::string foreign = array({bulk("q:a"), array({entry("5-1", {"d", "x"})})});
  EXPECT_EQ(parse_read(tree(array({foreign})).get(), "p:", limits(1, 1), out).status, ReplyStatus::malformed);
  EXPECT_EQ(parse_read(tree(array({one, one})).get(), "p:", limits(1, 1), out).status, ReplyStatus::over_limit);
  EXPECT_EQ(parse_read(tree(array({array({bulk("p:a")})})).get(), "p:", limits(1, 1), out).status,
            ReplyStatus::malformed);
  EXPECT_EQ(parse_read(tree("-ERR x\r\n").get(), "p:", limits(1, 1), out).status, ReplyStatus::redis_error);
  EXPECT_TRUE(out.empty());
}

TEST(Replies, SmallAnswers) {
  EXPECT_EQ(parse_integer(tree(":42\r\n").get()).value, 42);
  EXPECT_EQ(parse_integer(tree("+OK\r\n").get()).status, ReplyStatus::malformed);
  const std::string sha(40, 'a');
  const ReplyPtr sha_tree = tree(bulk(sha));
  EXPECT_EQ(parse_sha(sha_tree.get()).sha, sha);
  EXPECT_EQ(parse_sha(tree(bulk(std::string(40, 'A'))).get()).status, ReplyStatus::malformed);
  EXPECT_EQ(parse_sha(tree(bulk("abc")).get()).status, ReplyStatus::malformed);
  EXPECT_TRUE(is_pong(tree("+PONG\r\n").get()));
  EXPECT_FALSE(is_pong(tree("-LOADING\r\n").get()));
  EXPECT_FALSE(is_pong(nullptr));
}

TEST(Replies, RedisUnavailableIsTheWholeServersStateNotAKeys) {
  EXPECT_TRUE(redis_unavailable("LOADING Redis is loading the dataset in memory"));
  EXPECT_TRUE(redis_unavailable("BUSY Redis is busy running a script."));
  EXPECT_TRUE(redis_unavailable("MASTERDOWN Link with MASTER is down"));
  EXPECT_TRUE(redis_unavailable("TRYAGAIN"));
  EXPECT_TRUE(redis_unavailable("CLUSTERDOWN The cluster is down"));
  EXPECT_FALSE(redis_unavailable("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_FALSE(redis_unavailable("BUSYKEY Target key name already exists."));
  EXPECT_FALSE(redis_unavailable("NOPERM this user has no permissions to access one of the keys"));
  EXPECT_FALSE(redis_unavailable("ERR LOADING"));
  EXPECT_FALSE(redis_unavailable(""));
}

}  // namespace
}  // namespace sluice::broker
