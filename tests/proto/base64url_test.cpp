#include "proto/base64url.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::proto {
namespace {

std::string decoded(std::string_view in) {
  std::string out;
  return base64url_decode(in, out) ? out : "<refused>";
}

std::string encoded(std::string_view in) {
  std::string out;
  base64url_append(in, out);
  return out;
}

TEST(Base64url, Rfc4648Vectors) {
  // RFC 4648 §10, without padding.
  EXPECT_EQ(encoded(""), "");
  EXPECT_EQ(encoded("f"), "Zg");
  EXPECT_EQ(encoded("fo"), "Zm8");
  EXPECT_EQ(encoded("foo"), "Zm9v");
  EXPECT_EQ(encoded("foob"), "Zm9vYg");
  EXPECT_EQ(encoded("fooba"), "Zm9vYmE");
  EXPECT_EQ(encoded("foobar"), "Zm9vYmFy");
  for (const char* text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    EXPECT_EQ(decoded(encoded(text)), text);
  }
}

TEST(Base64url, UsesTheUrlAlphabet) {
  EXPECT_EQ(encoded("\xfb\xff"), "-_8");
  EXPECT_EQ(decoded("-_8"), "\xfb\xff");
  EXPECT_EQ(decoded("+/8"), "<refused>");  // the standard alphabet's spelling
}

TEST(Base64url, RefusesPaddingStrayCharactersAndImpossibleLengths) {
  EXPECT_EQ(decoded("Zg=="), "<refused>");
  EXPECT_EQ(decoded("Zm 9v"), "<refused>");
  EXPECT_EQ(decoded("Zm9v."), "<refused>");
  EXPECT_EQ(decoded("Z"), "<refused>");
  EXPECT_EQ(decoded(std::string("Zm\0v", 4)), "<refused>");
}

TEST(Base64url, RefusesNonZeroUnusedBits) {
  EXPECT_EQ(decoded("QQ"), "A");
  EXPECT_EQ(decoded("QR"), "<refused>");
  EXPECT_EQ(decoded("QUE"), "AA");
  EXPECT_EQ(decoded("QUF"), "<refused>");
}

TEST(Base64url, RoundTripsEveryByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n <= all.size(); n += 7) EXPECT_EQ(decoded(encoded(all.substr(0, n))), all.substr(0, n));
}

}  // namespace
}  // namespace sluice::proto
