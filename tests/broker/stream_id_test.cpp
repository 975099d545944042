#include "broker/stream_id.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <string>

#include "hub/event_id.hpp"

namespace sluice::broker {
namespace {

constexpr std::uint64_t kMax = UINT64_MAX;

std::string stream_text(StreamId id) {
  char text[kMaxStreamIdText];
  return std::string(text, format_stream_id(id, text));
}

std::string event_text(StreamId id) {
  char text[kMaxEventIdText];
  return std::string(text, format_event_id(id, text));
}

TEST(StreamId, RedisFormRoundTripsAtTheEdges) {
  for (const StreamId id : {StreamId{0, 0}, StreamId{1796131742915, 1}, StreamId{kMax, kMax}}) {
    const std::string text = stream_text(id);
    EXPECT_LE(text.size(), kMaxStreamIdText);
    EXPECT_EQ(parse_stream_id(text), id) << text;
  }
  EXPECT_EQ(stream_text({1796131742915, 7}), "1796131742915-7");
  EXPECT_EQ(stream_text({kMax, kMax}).size(), kMaxStreamIdText);
}

TEST(StreamId, RedisFormRefusesWhatRedisNeverWrites) {
  for (const char* bad : {"", "-", "+", "$", "5", "5-", "-5", "5-x", "x-5", "05-1", "5-01", "5--1", "5-+1", "+5-1",
                          "5-1-2", "18446744073709551616-0", "0-18446744073709551616", " 5-1", "5-1 "}) {
    EXPECT_FALSE(parse_stream_id(bad).has_value()) << bad;
  }
}

TEST(StreamId, ClientFormRoundTripsAtTheEdges) {
  for (const StreamId id : {StreamId{0, 0}, StreamId{1796131742915, 1}, StreamId{kMax, kMax}}) {
    const std::string text = event_text(id);
    EXPECT_LE(text.size(), kMaxEventIdText);
    EXPECT_EQ(parse_event_id(text), id) << text;
  }
  EXPECT_EQ(event_text({kMax, kMax}).size(), kMaxEventIdText);
}

// A topic's stream epoch is written as the single-node hub writes its run's
// epoch, so the hub's own parser reads a broker id as EPOCH and SEQ.
TEST(StreamId, ClientFormIsTheHubsEpochColonSeq) {
  const StreamId id{1796131742915, 42};
  const std::string text = event_text(id);
  const hub::ParsedId parsed = hub::parse_event_id(text);
  ASSERT_TRUE(parsed.ok);
  EXPECT_EQ(parsed.seq, 42u);
  char expected_epoch[16];
  const auto end = std::to_chars(expected_epoch, expected_epoch + sizeof expected_epoch, id.epoch, 36).ptr;
  EXPECT_EQ(parsed.epoch, std::string_view(expected_epoch, static_cast<std::size_t>(end - expected_epoch)));
}

TEST(StreamId, ClientFormRefusesOtherSpellings) {
  for (const char* bad : {"", ":", "abc", "abc:", ":5", "ABC:5", "0abc:5", "abc:05", "abc:-5", "a-b:5",
                          "3w5e11264sgsg:1", "abc:18446744073709551616", "1796131742915-7"}) {
    EXPECT_FALSE(parse_event_id(bad).has_value()) << bad;
  }
}

TEST(StreamId, OrdersByEpochThenSeq) {
  EXPECT_LT((StreamId{5, 9}), (StreamId{6, 1}));
  EXPECT_LT((StreamId{5, 1}), (StreamId{5, 2}));
  EXPECT_EQ((StreamId{5, 1}.next()), (StreamId{5, 2}));
}

}  // namespace
}  // namespace sluice::broker
