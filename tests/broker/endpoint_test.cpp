#include "broker/endpoint.hpp"

#include <gtest/gtest.h>

namespace sluice::broker {
namespace {

TEST(Endpoint, TakesAddressesWithAndWithoutPort) {
  Endpoint e;
  std::string error;
  ASSERT_TRUE(parse_endpoint("redis://127.0.0.1", e, error)) << error;
  EXPECT_EQ(e, (Endpoint{"127.0.0.1", 6379}));
  ASSERT_TRUE(parse_endpoint("redis://10.0.0.2:7000", e, error)) << error;
  EXPECT_EQ(e, (Endpoint{"10.0.0.2", 7000}));
  ASSERT_TRUE(parse_endpoint("redis://[::1]:7001", e, error)) << error;
  EXPECT_EQ(e, (Endpoint{"::1", 7001}));
  ASSERT_TRUE(parse_endpoint("redis://localhost", e, error)) << error;
  EXPECT_EQ(e, (Endpoint{"localhost", 6379}));
}

TEST(Endpoint, RefusesWithOneLineNamingTheEntry) {
  const std::pair<const char*, const char*> cases[] = {
      {"127.0.0.1:6379", "want redis://"},
      {"http://127.0.0.1", "want redis://"},
      {"rediss://127.0.0.1", "TLS"},
      {"redis://user:pw@127.0.0.1", "password"},
      {"redis://127.0.0.1/2", "database"},
      {"redis://redis.example.com", "address"},
      {"redis://", "address"},
      {"redis://127.0.0.1:", "want redis://"},
      {"redis://127.0.0.1:0", "1-65535"},
      {"redis://127.0.0.1:65536", "1-65535"},
      {"redis://127.0.0.1:6x", "1-65535"},
      {"redis://[::1", "want redis://"},
      {"redis://[::1]x", "want redis://"},
      {"redis://[1.2.3.4]", "address"},
  };
  for (const auto& [url, why] : cases) {
    Endpoint e;
    std::string error;
    EXPECT_FALSE(parse_endpoint(url, e, error)) << url;
    EXPECT_NE(error.find(url), std::string::npos) << error;
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST(Endpoint, ListKeepsOrderAndRefusesRepeatsAndExcess) {
  std::vector<Endpoint> out;
  std::string error;
  ASSERT_TRUE(parse_endpoints({"redis://127.0.0.1:7001", "redis://127.0.0.1:7000"}, out, error)) << error;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].port, 7001);
  EXPECT_FALSE(parse_endpoints({}, out, error));
  EXPECT_FALSE(parse_endpoints({"redis://127.0.0.1", "redis://127.0.0.1:6379"}, out, error));
  EXPECT_NE(error.find("twice"), std::string::npos) << error;
  std::vector<std::string> many;
  for (std::size_t i = 0; i <= kMaxShards; ++i) many.push_back("redis://127.0.0.1:" + std::to_string(7000 + i));
  EXPECT_FALSE(parse_endpoints(many, out, error));
  EXPECT_NE(error.find("at most"), std::string::npos) << error;
}

}  // namespace
}  // namespace sluice::broker
