#include "auth/peer_address.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

namespace sluice::auth {
namespace {

PeerAddress v4(const char* text) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, text, &a.sin_addr);
  return peer_address(reinterpret_cast<const sockaddr*>(&a), sizeof a);
}

PeerAddress v6(const char* text) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  inet_pton(AF_INET6, text, &a.sin6_addr);
  return peer_address(reinterpret_cast<const sockaddr*>(&a), sizeof a);
}

TEST(PeerAddress, Ipv4IsCountedWhole) {
  EXPECT_EQ(v4("203.0.113.7").length, 4);
  EXPECT_EQ(v4("203.0.113.7").view(), v4("203.0.113.7").view());
  EXPECT_NE(v4("203.0.113.7").view(), v4("203.0.113.8").view());
}

TEST(PeerAddress, Ipv6IsCountedByItsSlash64) {
  EXPECT_EQ(v6("2001:db8:1:2::1").length, 8);
  EXPECT_EQ(v6("2001:db8:1:2::1").view(), v6("2001:db8:1:2:ffff::9").view());
  EXPECT_NE(v6("2001:db8:1:2::1").view(), v6("2001:db8:1:3::1").view());
}

TEST(PeerAddress, Ipv4MappedIpv6IsTheIpv4Address) {
  EXPECT_EQ(v6("::ffff:203.0.113.7").view(), v4("203.0.113.7").view());
}

TEST(PeerAddress, FromTheFormTheServerShows) {
  EXPECT_EQ(peer_address("203.0.113.7:5000").view(), v4("203.0.113.7").view());
  EXPECT_EQ(peer_address("[2001:db8:1:2::1]:443").view(), v6("2001:db8:1:2::1").view());
  EXPECT_EQ(peer_address("[::ffff:203.0.113.7]:80").view(), v4("203.0.113.7").view());
  EXPECT_EQ(peer_address("[::1]:80").length, 8);
  for (const char* bad : {"", "203.0.113.7", "2001:db8::1", "[2001:db8::1:80", "host:80", "[::1]x:80"}) {
    EXPECT_EQ(peer_address(std::string_view(bad)).length, 0) << bad;
  }
}

TEST(PeerAddress, OtherFamiliesAreUnknown) {
  sockaddr_un u{};
  u.sun_family = AF_UNIX;
  EXPECT_EQ(peer_address(reinterpret_cast<const sockaddr*>(&u), sizeof u).length, 0);
  EXPECT_EQ(peer_address(nullptr, 0).length, 0);
  sockaddr_in short_v4{};
  short_v4.sin_family = AF_INET;
  EXPECT_EQ(peer_address(reinterpret_cast<const sockaddr*>(&short_v4), 4).length, 0);
}

}  // namespace
}  // namespace sluice::auth
