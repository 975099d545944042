#include "proto/base64.hpp"

#include <gtest/gtest.h>

#include <string>

#include "buf/fixed_sink.hpp"
#include "buf/string_sink.hpp"

namespace sluice::proto {
namespace {

std::string encode(std::string_view bytes) {
  std::string out;
  buf::StringSink sink(out);
  EXPECT_TRUE(base64_encode(sink, bytes));
  EXPECT_EQ(out.size(), base64_encoded_size(bytes.size()));
  return out;
}

Base64Status decode(std::string_view text, std::string& out) {
  out.assign(text.size(), '\0');
  const Base64Decoded d = base64_decode(text, out.data(), out.size());
  out.resize(d.status == Base64Status::ok ? d.size : 0);
  return d.status;
}

TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(encode(bytes), text);
    std::string back;
    ASSERT_EQ(decode(text, back), Base64Status::ok) << text;
    EXPECT_EQ(back, bytes);
  }
}

TEST(Base64, EveryByteAcrossChunkBoundaries) {
  for (const std::size_t size : {1u, 2u, 3u, 191u, 192u, 193u, 194u, 1000u, 65537u}) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i * 7 + 3);
    std::string back;
    ASSERT_EQ(decode(encode(bytes), back), Base64Status::ok) << size;
    EXPECT_EQ(back, bytes) << size;
  }
  EXPECT_EQ(encode(std::string_view("\x00\xff\xfe", 3)), "AP/+");
}

TEST(Base64, RefusesWhatIsNotCanonicalBase64) {
  std::string out;
  for (const std::string_view bad : {"Zg=", "Zg", "Z", "Zm9v=", "Zg==Zg==", "Z===", "====", "Zm9v\n", "Zm-v",
                                     "Zm_v", "Zm9 ", "Zh==", "Zm9=", "=Zm9"}) {
    EXPECT_EQ(decode(bad, out), Base64Status::malformed) << bad;
  }
}

TEST(Base64, DecodesInPlaceAndRefusesASmallBuffer) {
  std::string text = "Zm9vYmFyIGJheg==";
  const Base64Decoded d = base64_decode(text, text.data(), text.size());
  ASSERT_EQ(d.status, Base64Status::ok);
  EXPECT_EQ(std::string_view(text.data(), d.size), "foobar baz");
  char small[5];
  EXPECT_EQ(base64_decode("Zm9vYmFy", small, sizeof small).status, Base64Status::no_room);
  EXPECT_EQ(base64_decode("Zm9vYg==", small, 4).status, Base64Status::ok);
}

TEST(Base64, AFullSinkAnswersFalse) {
  char buffer[6];
  buf::FixedSink sink(buffer, sizeof buffer);
  EXPECT_FALSE(base64_encode(sink, "foobar"));
}

// The handshake's form: a fixed buffer, NUL-terminated, same alphabet.
std::string encode_into_buffer(std::string_view bytes) {
  std::string out(base64_encoded_size(bytes.size()) + 1, '?');
  const std::size_t n = base64_encode({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}, out.data());
  EXPECT_EQ(n, base64_encoded_size(bytes.size()));
  EXPECT_EQ(out[n], '\0');
  out.resize(n);
  return out;
}

TEST(Base64, TheFixedBufferFormMatchesRfc4648TestVectors) {
  EXPECT_EQ(encode_into_buffer(""), "");
  EXPECT_EQ(encode_into_buffer("f"), "Zg==");
  EXPECT_EQ(encode_into_buffer("fo"), "Zm8=");
  EXPECT_EQ(encode_into_buffer("foobar"), "Zm9vYmFy");
  EXPECT_EQ(encode_into_buffer("\xFB\xFF\xBF"), "+/+/");
}

}  // namespace
}  // namespace sluice::proto
