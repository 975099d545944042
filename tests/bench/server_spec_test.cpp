#include "server_spec.hpp"

#include <gtest/gtest.h>

namespace sluice::bench {
namespace {

constexpr Transports kFanout{.tls = true, .h2_streams = 10000};

TEST(ServerSpec, ANameWithoutTransportIsHttp1AndLeavesItToH2c) {
  ServerSpec s;
  ASSERT_EQ(parse_server_spec("sluice=sluiced --listen 127.0.0.1:0 --set a=b", false, kFanout, s), "");
  EXPECT_EQ(s.name, "sluice");
  EXPECT_EQ(s.command, "sluiced --listen 127.0.0.1:0 --set a=b");
  EXPECT_EQ(s.http, HttpVersion::http1);
  EXPECT_FALSE(s.transport_named);
  EXPECT_EQ(transport_name(s), "http/1.1");
}

TEST(ServerSpec, ABareCommandIsItsOwnNameEvenWithAnAt) {
  ServerSpec s;
  ASSERT_EQ(parse_server_spec("ssh me@host", false, kFanout, s), "");
  EXPECT_EQ(s.name, "ssh me@host");
  EXPECT_EQ(s.command, "ssh me@host");
  EXPECT_FALSE(s.transport_named);
}

TEST(ServerSpec, H2cTakesStreamsPerConnectionInClear) {
  ServerSpec s;
  ASSERT_EQ(parse_server_spec("one@h2c=cmd", false, kFanout, s), "");
  EXPECT_EQ(s.name, "one@h2c");
  EXPECT_EQ(s.http, HttpVersion::h2);
  EXPECT_EQ(s.streams_per_connection, 1u);
  EXPECT_TRUE(s.transport_named);
  EXPECT_EQ(transport_name(s), "h2c");
  ASSERT_EQ(parse_server_spec("many@h2c/100=cmd", false, kFanout, s), "");
  EXPECT_EQ(s.streams_per_connection, 100u);
}

TEST(ServerSpec, H2IsChosenByAlpnOverTls) {
  ServerSpec s;
  ASSERT_EQ(parse_server_spec("tls@h2/10=cmd {cert}", true, kFanout, s), "");
  EXPECT_TRUE(s.tls);
  EXPECT_EQ(s.http, HttpVersion::h2);
  EXPECT_EQ(s.streams_per_connection, 10u);
  EXPECT_EQ(transport_name(s), "h2");
}

TEST(ServerSpec, H1OverridesH2cAndTakesNoStreams) {
  ServerSpec s;
  ASSERT_EQ(parse_server_spec("plain@h1=cmd", false, kFanout, s), "");
  EXPECT_TRUE(s.transport_named);
  EXPECT_EQ(s.http, HttpVersion::http1);
  EXPECT_NE(parse_server_spec("plain@h1/2=cmd", false, kFanout, s), "");
}

TEST(ServerSpec, AWrongTransportSaysWhatIsRight) {
  ServerSpec s;
  EXPECT_NE(parse_server_spec("x@h2=cmd", false, kFanout, s).find("@h2c"), std::string::npos);
  EXPECT_NE(parse_server_spec("x@h2c=cmd", true, kFanout, s).find("@h2 "), std::string::npos);
  EXPECT_NE(parse_server_spec("x@h3=cmd", false, kFanout, s).find("h1, or h2c"), std::string::npos);
  for (const char* bad : {"x@h2c/0=cmd", "x@h2c/10001=cmd", "x@h2c/=cmd", "x@h2c/2x=cmd", "x@h2c-2=cmd"}) {
    EXPECT_NE(parse_server_spec(bad, false, kFanout, s), "") << bad;
  }
}

TEST(ServerSpec, AScenarioRefusesWhatItsReadersCannotSpeak) {
  ServerSpec s;
  EXPECT_NE(parse_server_spec("x@h2c=cmd", false, {}, s).find("HTTP/1.1 only"), std::string::npos);
  EXPECT_EQ(parse_server_spec("x@h2c=cmd", false, {.h2_streams = 1}, s), "");
  EXPECT_NE(parse_server_spec("x@h2c/2=cmd", false, {.h2_streams = 1}, s).find("one stream"), std::string::npos);
}

}  // namespace
}  // namespace sluice::bench
