// The kernel's receive timestamps on real loopback TCP: a read notes when
// its bytes came, not when it ran, and the time it gives on the loop's
// clock is never later than the loop's own.
#include "io/arrival_stamp.hpp"

#include <sys/socket.h>
#include <time.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string_view>
#include <thread>

#include "arrival_stamps_on.hpp"
#include "loopback_pair.hpp"

namespace sluice::io {
namespace {

using namespace std::chrono_literals;
using Clock = Loop::Clock;

// A connected pair on loopback: the accepted side (`sender`, non-blocking)
// reads what the other (`reader`) sends.
struct Pair : test::LoopbackPair {
  Pair() : LoopbackPair(0) {}
};

// The read runs well after the byte came (a loop that stalled); the time
// it notes is the byte's, within what clocks read a moment apart differ by.
TEST(ArrivalStamp, ARecvNotesWhenItsBytesCameNotWhenItRan) {
  const test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  Pair pair;
  ASSERT_TRUE(stamp_arrivals(pair.sender));
  const Clock::time_point before = Clock::now();
  ASSERT_EQ(::send(pair.reader, "x", 1, 0), 1);  // on loopback, delivered within the call
  const Clock::time_point sent = Clock::now();
  std::this_thread::sleep_for(200ms);  // the stall the stamp sees through
  std::int64_t arrival = 0;
  char got[8];
  ASSERT_EQ(recv_stamped(pair.sender, got, sizeof got, arrival), 1);
  const Clock::time_point read = Clock::now();
  ASSERT_NE(arrival, 0);
  const Clock::time_point arrived = arrived_at(arrival, read);
  EXPECT_GE(arrived, before - 50ms);
  EXPECT_LE(arrived, sent + 50ms);
  EXPECT_EQ(recv_stamped(pair.sender, got, sizeof got, arrival), -EAGAIN);
}

// Though the kernel stamps packets for another socket, a socket that did
// not ask for stamps is given none.
TEST(ArrivalStamp, ASocketWithoutStampsNotesNothingAndTheLoopsTimeStands) {
  const test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  Pair pair;
  ASSERT_EQ(::send(pair.reader, "x", 1, 0), 1);
  std::int64_t arrival = 0;
  char got[8];
  long n = -EAGAIN;
  for (int i = 0; i < 100000 && n == -EAGAIN; ++i) n = recv_stamped(pair.sender, got, sizeof got, arrival);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(arrival, 0);
  arrival = 12345;  // an earlier read's stamp: bytes without a stamp of their own do not keep it
  ASSERT_EQ(::send(pair.reader, "y", 1, 0), 1);
  n = -EAGAIN;
  for (int i = 0; i < 100000 && n == -EAGAIN; ++i) n = recv_stamped(pair.sender, got, sizeof got, arrival);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(arrival, 0);
  const Clock::time_point now = Clock::now();
  EXPECT_EQ(arrived_at(arrival, now), now);
}

// A stamp the realtime clock puts after the loop's time (the clock was
// stepped back since) is taken as the loop's time: never later.
TEST(ArrivalStamp, AnArrivalIsNeverLaterThanTheLoopsTime) {
  timespec real{};
  ASSERT_EQ(::clock_gettime(CLOCK_REALTIME, &real), 0);
  const std::int64_t in_a_second = (real.tv_sec + 1) * 1'000'000'000LL + real.tv_nsec;
  const Clock::time_point now = Clock::now();
  EXPECT_EQ(arrived_at(in_a_second, now), now);
}

TEST(ArrivalStamp, AReadAtThePeersEndReturnsZero) {
  Pair pair;
  ASSERT_TRUE(stamp_arrivals(pair.sender));
  ::shutdown(pair.reader, SHUT_WR);
  std::int64_t arrival = 0;
  char got[8];
  long n = -EAGAIN;
  for (int i = 0; i < 100000 && n == -EAGAIN; ++i) n = recv_stamped(pair.sender, got, sizeof got, arrival);
  EXPECT_EQ(n, 0);
}

// A peek tells when the bytes waiting came, takes none of them, and says
// when none wait; the read after it notes the newest it took. Bytes that
// wait together may share the newest one's stamp (the kernel merges
// segments in its queue): never earlier than they came.
TEST(ArrivalStamp, APeekTellsWhenTheBytesWaitingCameAndTakesNone) {
  const test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  Pair pair;
  ASSERT_TRUE(stamp_arrivals(pair.sender));
  std::int64_t arrival = 0;
  EXPECT_FALSE(peek_arrival(pair.sender, arrival));
  const Clock::time_point before = Clock::now();
  ASSERT_EQ(::send(pair.reader, "x", 1, 0), 1);
  const Clock::time_point first_sent = Clock::now();
  std::this_thread::sleep_for(200ms);
  for (int look = 0; look < 2; ++look) {
    arrival = 0;
    ASSERT_TRUE(peek_arrival(pair.sender, arrival));
    ASSERT_NE(arrival, 0);
    const Clock::time_point arrived = arrived_at(arrival, Clock::now());
    EXPECT_GE(arrived, before - 50ms);
    EXPECT_LE(arrived, first_sent + 50ms);
  }
  ASSERT_EQ(::send(pair.reader, "y", 1, 0), 1);
  const Clock::time_point second_sent = Clock::now();
  ASSERT_TRUE(peek_arrival(pair.sender, arrival));
  EXPECT_GE(arrived_at(arrival, Clock::now()), before - 50ms);
  char got[8];
  ASSERT_EQ(recv_stamped(pair.sender, got, sizeof got, arrival), 2);
  EXPECT_EQ(std::string_view(got, 2), "xy");
  EXPECT_GE(arrived_at(arrival, Clock::now()), second_sent - 50ms);
  EXPECT_FALSE(peek_arrival(pair.sender, arrival));
  ::shutdown(pair.reader, SHUT_WR);
  EXPECT_FALSE(peek_arrival(pair.sender, arrival));  // the peer's end is no input
}

}  // namespace
}  // namespace sluice::io
