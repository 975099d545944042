#include "transport/h2_wire_marks.hpp"

#include <gtest/gtest.h>

namespace sluice::transport {
namespace {

// A stream whose bytes went out in three runs between other streams' bytes:
// stream bytes 0-99 at wire 100-199, 100-199 at wire 300-399, 200-299 at
// wire 500-599.
H2WireMarks three_runs() {
  H2WireMarks marks;
  marks.start(0);
  marks.add(200, 100);
  marks.add(400, 200);
  marks.add(600, 300);
  return marks;
}

TEST(H2WireMarks, BytesPastWhatThePeerReadAreItsBacklog) {
  H2WireMarks marks = three_runs();
  // Nothing acknowledged: all 300 in flight.
  conn::Backlog backlog = marks.backlog(0, 0, 0, 300);
  EXPECT_EQ(backlog.in_flight, 300u);
  EXPECT_EQ(backlog.unread, 0u);
  // The wire acknowledged to 450, read to 250: the first run read, the
  // second acknowledged and unread, the third in flight.
  backlog = marks.backlog(450, 250, 450, 300);
  EXPECT_EQ(backlog.in_flight, 100u);
  EXPECT_EQ(backlog.unread, 100u);
  // Read to the end.
  backlog = marks.backlog(600, 600, 600, 300);
  EXPECT_EQ(backlog.total(), 0u);
}

TEST(H2WireMarks, InFlightRunsThePathDeliversWithinARoundTripAreArriving) {
  H2WireMarks marks = three_runs();
  // Acknowledged to 250, read to 250; the path delivers the wire to 450
  // within a round trip: the second run (stream bytes 100-199) is
  // arriving, the third is not.
  conn::Backlog backlog = marks.backlog(250, 250, 450, 300);
  EXPECT_EQ(backlog.in_flight, 200u);
  EXPECT_EQ(backlog.arriving, 100u);
  // A run counts only once the whole of it arrives: to 550 is no more.
  EXPECT_EQ(marks.backlog(250, 250, 550, 300).arriving, 100u);
  // To the end: all of it.
  EXPECT_EQ(marks.backlog(250, 250, 600, 300).arriving, 200u);
  // Nothing past what is acknowledged: nothing arriving.
  EXPECT_EQ(marks.backlog(450, 250, 450, 300).arriving, 0u);
}

TEST(H2WireMarks, OtherStreamsBytesAheadOfAllOfItDoNotCount) {
  H2WireMarks marks = three_runs();
  // Read to 210: past the first run, short of the second; the other
  // streams' bytes in 200-300 are not this stream's backlog.
  EXPECT_EQ(marks.backlog(210, 210, 210, 300).total(), 200u);
}

TEST(H2WireMarks, BytesBeforeTheWatchAreLeftOut) {
  H2WireMarks marks;
  marks.start(1000);
  marks.add(5000, 1100);
  EXPECT_EQ(marks.backlog(0, 0, 0, 1100).total(), 100u);
  EXPECT_EQ(marks.backlog(5000, 5000, 5000, 1100).total(), 0u);
}

TEST(H2WireMarks, MarksThatRunOutCountTheirBytesAsUnreadLonger) {
  H2WireMarks marks;
  marks.start(0);
  for (std::uint64_t i = 1; i <= 2 * H2WireMarks::kMarks; ++i) marks.add(i * 100, i * 10);
  // The last marks were folded into one ending at wire 3200: read to 3100,
  // the stream's bytes from the fold on still count.
  const conn::Backlog backlog = marks.backlog(3100, 3100, 3100, 320);
  EXPECT_GT(backlog.total(), 10u);
  EXPECT_EQ(marks.backlog(3200, 3200, 3200, 320).total(), 0u);
}

}  // namespace
}  // namespace sluice::transport
