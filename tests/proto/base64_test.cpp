#include "proto/base64.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sluice::proto {
namespace {

std::string encode(std::string_view bytes) {
  std::string out(base64_size(bytes.size()) + 1, '?');
  const std::size_t n = base64_encode({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}, out.data());
  EXPECT_EQ(n, base64_size(bytes.size()));
  EXPECT_EQ(out[n], '\0');
  out.resize(n);
  return out;
}

TEST(Base64, Rfc4648TestVectors) {
  EXPECT_EQ(encode(""), "");
  EXPECT_EQ(encode("f"), "Zg==");
  EXPECT_EQ(encode("fo"), "Zm8=");
  EXPECT_EQ(encode("foo"), "Zm9v");
  EXPECT_EQ(encode("foob"), "Zm9vYg==");
  EXPECT_EQ(encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, HighBytesUseTheLastLettersOfTheAlphabet) {
  EXPECT_EQ(encode("\xFB\xFF\xBF"), "+/+/");
  EXPECT_EQ(encode("\xFF"), "/w==");
}

}  // namespace
}  // namespace sluice::proto
