#include "hub/history.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

TEST(History, FirstAfterInAnEmptyHistoryIsItsEnd) {
  const History history(4, 1 << 20);
  EXPECT_EQ(history.first_after(0), 0U);
  EXPECT_EQ(history.first_after(7), 0U);
}

}  // namespace
}  // namespace sluice::hub
