#include "session/host_check.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::session {
namespace {

bool allowed(std::string_view host, std::vector<std::string_view> list) { return host_allowed(host, list); }

TEST(HostCheck, EntriesAreNamesAddressesOrNamePortOrStar) {
  for (const std::string_view good : {"*", "localhost", "127.0.0.1", "[::1]", "[::1]:8080", "push.example.com",
                                      "push.example.com:443", "localhost.", "my_host"}) {
    EXPECT_TRUE(valid_host_entry(good)) << good;
  }
  for (const std::string_view bad : {"", "evil/example", "a b", "host:", "host:0", "host:65536", "host:8x",
                                     "*.example.com", "::1", "[::1", "[::1]x", "[zz]", "http://h", "h:1:2"}) {
    EXPECT_FALSE(valid_host_entry(bad)) << bad;
  }
}

TEST(HostCheck, ANameWithoutAPortAllowsEveryPortAndNamesIgnoreCaseAndAFinalDot) {
  const std::vector<std::string_view> list{"localhost", "127.0.0.1", "[::1]"};
  for (const std::string_view host : {"localhost", "localhost:8080", "LocalHost:1", "localhost.:8080", "127.0.0.1",
                                      "127.0.0.1:80", "[::1]", "[::1]:8080"}) {
    EXPECT_TRUE(allowed(host, list)) << host;
  }
  for (const std::string_view host : {"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.2",
                                      "127.0.0.1.evil.example", "[::2]:8080", "localhost:", "localhost:x", "[::1"}) {
    EXPECT_FALSE(allowed(host, list)) << host;
  }
}

TEST(HostCheck, ANameWithAPortAllowsThatPortOnly) {
  const std::vector<std::string_view> list{"push.example.com:443"};
  EXPECT_TRUE(allowed("push.example.com:443", list));
  EXPECT_FALSE(allowed("push.example.com", list));
  EXPECT_FALSE(allowed("push.example.com:8443", list));
}

TEST(HostCheck, AnEmptyListOrAMissingHostIsNotJudged) {
  EXPECT_TRUE(allowed("evil.example", {}));
  EXPECT_TRUE(allowed("", {"localhost"}));
}

TEST(HostCheck, TheDefaultHoldsOnlyOnLoopbackWithoutAnAuthorizer) {
  const std::array<std::string_view, 1> loopback{"127.0.0.2"};
  const std::vector<std::string> expected{"localhost", "127.0.0.1", "[::1]", "127.0.0.2"};
  EXPECT_EQ(hosts_in_force({}, loopback, false), expected);
  // Tokens or a cookie for this server are what a rebound page lacks.
  EXPECT_TRUE(hosts_in_force({}, loopback, true).empty());
  const std::array<std::string_view, 2> public_too{"127.0.0.1", "0.0.0.0"};
  EXPECT_TRUE(hosts_in_force({}, public_too, false).empty());
  // A configured list replaces the default; `*` anywhere in it means any.
  const std::vector<std::string> configured{"push.example.com"};
  EXPECT_EQ(hosts_in_force(configured, loopback, false), configured);
  EXPECT_TRUE(hosts_in_force({"push.example.com", "*"}, loopback, false).empty());
}

TEST(HostCheck, LoopbackNames) {
  for (const std::string_view host : {"localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"}) {
    EXPECT_TRUE(loopback_name(host)) << host;
  }
  for (const std::string_view host : {"0.0.0.0", "10.0.0.1", "127.evil.example", "localhost.example", ""}) {
    EXPECT_FALSE(loopback_name(host)) << host;
  }
}

}  // namespace
}  // namespace sluice::session
