#include "stamp.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sequence_tracker.hpp"

namespace sluice::bench {
namespace {

TEST(Stamp, RoundTripsAndRefusesGarbage) {
  const std::string payload = make_payload(64, 0x0123456789abcdefULL);
  ASSERT_EQ(payload.size(), 64u);
  std::uint64_t ns = 0;
  ASSERT_TRUE(read_stamp(payload, ns));
  EXPECT_EQ(ns, 0x0123456789abcdefULL);
  EXPECT_FALSE(read_stamp("0123456789abcdeg", ns));
  EXPECT_FALSE(read_stamp("0123", ns));
  EXPECT_EQ(make_payload(4, 1).size(), kPayloadHeader);
}

TEST(Stamp, LaysOutIndexSequenceAndFillerAsDocumented) {
  // The example in stamp.hpp, byte for byte: peers generate this format.
  EXPECT_EQ(make_payload(40, 100'000'000'000ULL, 3, 10), "000000174876e80003" "0000000000000a" "jklmnopq");
  const std::string payload = make_payload(100, 7, 0xfe, 0x00ffffffffffffffULL);
  std::uint32_t index = 0;
  std::uint64_t seq = 0;
  ASSERT_TRUE(read_sequence(payload, index, seq));
  EXPECT_EQ(index, 0xfeu);
  EXPECT_EQ(seq, 0x00ffffffffffffffULL);
  EXPECT_TRUE(filler_intact(payload, 0xfe));
  EXPECT_FALSE(filler_intact(payload, 0xfd)) << "another publisher's filler";
}

TEST(Stamp, RefusesCutOrAlteredPayloads) {
  const std::string payload = make_payload(64, 1, 5, 9);
  std::uint32_t index = 0;
  std::uint64_t seq = 0;
  EXPECT_FALSE(read_sequence(payload.substr(0, kPayloadHeader - 1), index, seq));
  std::string upper = payload;
  upper[kSequenceOffset] = 'A';
  EXPECT_FALSE(read_sequence(upper, index, seq)) << "lowercase hex only";
  std::string spliced = payload;
  spliced[50] = 'x';
  EXPECT_FALSE(filler_intact(spliced, 5));
}

TEST(SequenceTracker, CountsGapsAndOrderErrorsPerPublisher) {
  SequenceTracker t;
  EXPECT_EQ(t.next(0, 1).gaps, 0u);
  EXPECT_EQ(t.next(1, 1).gaps, 0u) << "publishers are counted apart";
  EXPECT_EQ(t.next(0, 4).gaps, 2u);
  const SequenceTracker::Step repeat = t.next(0, 4);
  EXPECT_TRUE(repeat.out_of_order);
  EXPECT_TRUE(t.next(0, 2).out_of_order);
  EXPECT_EQ(t.last(0), 4u) << "a step back does not lower the mark";
  EXPECT_FALSE(t.next(0, 5).out_of_order);
  EXPECT_EQ(t.last(1), 1u);
}

TEST(SequenceTracker, AReaderJoiningALiveStreamCountsFromItsFirstEvent) {
  SequenceTracker t;
  EXPECT_EQ(t.next(0, 40'000'001).gaps, 0u);
  EXPECT_EQ(t.next(0, 40'000'002).gaps, 0u);
  EXPECT_EQ(t.next(0, 40'000'010).gaps, 7u);
}

TEST(SequenceTracker, TheGeneratorStartsAgainAfterItsBatch) {
  SequenceTracker t;
  for (std::uint64_t seq : {1u, 2u, 3u}) EXPECT_EQ(t.next(kGeneratorIndex, seq).gaps, 0u);
  const SequenceTracker::Step wrap = t.next(kGeneratorIndex, 1);
  EXPECT_EQ(wrap.gaps, 0u);
  EXPECT_FALSE(wrap.out_of_order);
  EXPECT_EQ(t.next(kGeneratorIndex, 2).gaps, 0u);
  EXPECT_EQ(t.next(kGeneratorIndex, 1).gaps, 1u) << "3 of that batch is missing";
  // Another publisher's 1 after its 3 is still an order error.
  for (std::uint64_t seq : {1u, 2u, 3u}) static_cast<void>(t.next(0, seq));
  EXPECT_TRUE(t.next(0, 1).out_of_order);
}

}  // namespace
}  // namespace sluice::bench
