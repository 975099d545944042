#include "hub/history.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "buf/pool.hpp"

namespace sluice::hub {
namespace {

KeptEvent event(std::uint64_t seq) {
  KeptEvent e;
  e.seq = seq;
  return e;
}

std::vector<std::uint64_t> seqs_from(const History& history, std::size_t first) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = first; i < history.size(); ++i) out.push_back(history.at(i).seq);
  return out;
}

TEST(History, FirstAfterFindsWhereANewerSeqStartsAcrossTheRingsWrap) {
  History history(8, 1 << 20);
  for (std::uint64_t seq = 1; seq <= 13; ++seq) history.push(event(seq));  // keeps 6..13, wrapped
  ASSERT_EQ(history.oldest_seq(), 6U);
  EXPECT_EQ(history.first_after(0), 0U);
  EXPECT_EQ(history.first_after(5), 0U);
  EXPECT_EQ(history.first_after(6), 1U);
  EXPECT_EQ(seqs_from(history, history.first_after(10)), (std::vector<std::uint64_t>{11, 12, 13}));
  EXPECT_EQ(history.first_after(12), 7U);
  EXPECT_EQ(history.first_after(13), history.size());
  EXPECT_EQ(history.first_after(99), history.size());
}

// A broker's stream may leave holes in the ids (entries trimmed before the
// node read them): the seqs still only grow.
TEST(History, FirstAfterASeqInAHoleStartsAtTheNextKeptEvent) {
  History history(16, 1 << 20);
  for (const std::uint64_t seq : {3, 4, 9, 10, 20}) history.push(event(seq));
  EXPECT_EQ(seqs_from(history, history.first_after(5)), (std::vector<std::uint64_t>{9, 10, 20}));
  EXPECT_EQ(seqs_from(history, history.first_after(10)), (std::vector<std::uint64_t>{20}));
  EXPECT_EQ(seqs_from(history, history.first_after(2)), (std::vector<std::uint64_t>{3, 4, 9, 10, 20}));
}

// The byte bound counts each event as it was when pushed, through evictions,
// the ring's wrap and its growth.
TEST(History, TheByteBoundEvictsJustWhatANewEventNeeds) {
  buf::Pool pool({.block_count = 64, .block_size = 1024, .reserve = 4});
  const auto sized = [&pool](std::uint64_t seq, std::size_t bytes) {
    KeptEvent e = event(seq);
    e.payload = buf::make_frame(pool, buf::Lane::data, std::string(bytes, 'x'));
    return e;
  };
  History history(64, 1000);
  for (std::uint64_t seq = 1; seq <= 20; ++seq) history.push(sized(seq, 10));  // grows past its first 16 slots
  EXPECT_EQ(history.newest_evicted_by(800), std::nullopt);
  EXPECT_EQ(history.newest_evicted_by(801), 1U);
  history.push(sized(21, 300));
  history.push(sized(22, 300));
  ASSERT_EQ(history.size(), 22U);  // 200 + 600 bytes
  EXPECT_EQ(history.newest_evicted_by(205), 1U);
  EXPECT_EQ(history.newest_evicted_by(400), 20U);
  EXPECT_EQ(history.newest_evicted_by(401), 21U);
  history.push(sized(23, 500));
  EXPECT_EQ(seqs_from(history, 0), (std::vector<std::uint64_t>{22, 23}));
  history.push(sized(24, 100));
  EXPECT_EQ(seqs_from(history, 0), (std::vector<std::uint64_t>{22, 23, 24}));
  EXPECT_EQ(history.newest_evicted_by(100), std::nullopt);
  for (std::uint64_t seq = 25; seq <= 40; ++seq) history.push(sized(seq, 10));  // past the ring's last slot
  EXPECT_EQ(seqs_from(history, 0).front(), 23U);  // 500 + 100 + 16 x 10: 22 made room for the last ones
  EXPECT_EQ(history.newest_evicted_by(240), std::nullopt);
  EXPECT_EQ(history.newest_evicted_by(241), 23U);
}

TEST(History, FirstAfterInAnEmptyHistoryIsItsEnd) {
  const History history(4, 1 << 20);
  EXPECT_EQ(history.first_after(0), 0U);
  EXPECT_EQ(history.first_after(7), 0U);
}

}  // namespace
}  // namespace sluice::hub
