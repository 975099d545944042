#include "base64.hpp"

#include <gtest/gtest.h>

namespace sluice::client::detail {
namespace {

TEST(Base64, Rfc4648Vectors) {
  using namespace std::string_literals;
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""}, {"Zg==", "f"}, {"Zm8=", "fo"}, {"Zm9v", "foo"}, {"Zm9vYg==", "foob"}, {"Zm9vYmE=", "fooba"},
      {"Zm9vYmFy", "foobar"}, {"/+8A", "\xFF\xEF\x00"s}};
  for (const auto& [in, want] : vectors) {
    std::string out = "junk";
    ASSERT_TRUE(base64_decode(in, out)) << in;
    EXPECT_EQ(out, want) << in;
  }
}

TEST(Base64, RefusesMalformedInput) {
  std::string out;
  for (const char* bad : {"Zg=", "Zg=a", "Z===", "Zg==Zg==", "Zm9*", "Zm 9"}) {
    EXPECT_FALSE(base64_decode(bad, out)) << bad;
  }
}

}  // namespace
}  // namespace sluice::client::detail
