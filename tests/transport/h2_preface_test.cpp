#include "transport/h2_preface.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::transport {
namespace {

TEST(H2Preface, TellsH2cFromHttp1AsSoonAsTheBytesDo) {
  const std::string h2 = std::string(kH2Preface) + "\x00\x00\x00\x04";
  for (std::size_t n = 0; n < kH2Preface.size(); ++n) {
    EXPECT_EQ(match_h2_preface(h2.substr(0, n)), PrefaceMatch::need_more) << n;
  }
  EXPECT_EQ(match_h2_preface(h2.substr(0, kH2Preface.size())), PrefaceMatch::h2);
  EXPECT_EQ(match_h2_preface(h2), PrefaceMatch::h2);
  // "PRI" is a method an HTTP/1 request could use; the rest tells.
  EXPECT_EQ(match_h2_preface("PRI * HTTP/1.1\r\n"), PrefaceMatch::http1);
  EXPECT_EQ(match_h2_preface("GET /sse/news HTTP/1.1\r\n"), PrefaceMatch::http1);
  EXPECT_EQ(match_h2_preface("P"), PrefaceMatch::need_more);
  EXPECT_EQ(match_h2_preface("POST"), PrefaceMatch::http1);
}

}  // namespace
}  // namespace sluice::transport
