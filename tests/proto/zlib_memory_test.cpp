// zlib's state for one connection's inflater is taken through ZlibMemory,
// charged to the connection's account: what is charged is what zlib holds
// (its state when made, its window once used), a refused charge is a clear
// no_memory naming the limit, and everything goes back with the inflater.
#include "proto/zlib_memory.hpp"

#include <gtest/gtest.h>

#include <string>

#include "proto/ws_deflate.hpp"

namespace sluice::proto::ws {
namespace {

std::string compressed(std::string_view text) {
  Deflater deflater;
  const DeflateOutput out = deflater.compress({text.data(), text.size()});
  EXPECT_TRUE(out.ok);
  return {out.bytes.data(), out.bytes.size()};
}

InflateStatus inflate_into(Inflater& inflater, std::string_view input, std::string& out) {
  out.assign(64 << 10, '\0');
  const InflateResult r = inflater.inflate({input.data(), input.size()}, {out.data(), out.size()});
  out.resize(r.produced);
  return r.status;
}

constexpr std::size_t kWindow = std::size_t{1} << 15;

TEST(ZlibMemory, AnInflatersStateAndWindowAreChargedAndGivenBack) {
  buf::MemoryCap cap(1 << 20);
  buf::MemoryAccount account(&cap, 1 << 20);
  {
    Inflater inflater(15, false, 1 << 20, &account);
    ASSERT_TRUE(inflater.ok());
    const std::size_t state = account.charged();
    EXPECT_GT(state, 1000u) << "zlib's state is not charged";
    EXPECT_EQ(inflater.charged(), state);
    EXPECT_EQ(cap.charged(), state);
    const std::string text(10000, 'w');
    std::string out;
    EXPECT_EQ(inflate_into(inflater, compressed(text), out), InflateStatus::ok);
    EXPECT_EQ(out, text);
    // Its window is allocated on first use, and charged.
    EXPECT_GE(account.charged(), state + kWindow);
    EXPECT_EQ(inflater.refusal(), buf::ChargeStatus::ok);
  }
  EXPECT_EQ(account.charged(), 0u);
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(ZlibMemory, AnAccountWithNoRoomForTheStateRefusesTheInflater) {
  buf::MemoryAccount account(nullptr, 512);
  Inflater inflater(15, false, 1 << 20, &account);
  EXPECT_FALSE(inflater.ok());
  EXPECT_EQ(inflater.refusal(), buf::ChargeStatus::over_connection);
  EXPECT_EQ(account.charged(), 0u);
}

TEST(ZlibMemory, AnAccountWithNoRoomForTheWindowEndsTheMessageNamingTheLimit) {
  buf::MemoryCap cap(16 << 10);  // the state fits, its 32 KiB window does not
  buf::MemoryAccount account(&cap, 1 << 20);
  {
    Inflater inflater(15, false, 1 << 20, &account);
    ASSERT_TRUE(inflater.ok());
    const std::size_t state = account.charged();
    std::string out;
    EXPECT_EQ(inflate_into(inflater, compressed("some text to inflate"), out), InflateStatus::no_memory);
    EXPECT_EQ(inflater.refusal(), buf::ChargeStatus::over_server);
    EXPECT_EQ(account.charged(), state) << "a refused window was charged";
  }
  EXPECT_EQ(cap.charged(), 0u);
}

TEST(ZlibMemory, WithoutAnAccountNothingIsCharged) {
  Inflater inflater(15, false, 1 << 20);
  ASSERT_TRUE(inflater.ok());
  std::string out;
  EXPECT_EQ(inflate_into(inflater, compressed("plain"), out), InflateStatus::ok);
  EXPECT_EQ(out, "plain");
  EXPECT_EQ(inflater.refusal(), buf::ChargeStatus::ok);
}

}  // namespace
}  // namespace sluice::proto::ws
