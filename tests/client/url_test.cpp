#include "sluice/client/url.hpp"

#include <gtest/gtest.h>

namespace sluice::client {
namespace {

Url parse_ok(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(text, url, error)) << text << ": " << error;
  return url;
}

std::string parse_error(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_FALSE(parse_url(text, url, error)) << text;
  EXPECT_FALSE(error.empty()) << text;
  return error;
}

TEST(Url, HttpWithPortPathAndQuery) {
  const Url url = parse_ok("http://127.0.0.1:8080/sse/news?policy=latest");
  EXPECT_EQ(url.scheme, Scheme::http);
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.target, "/sse/news?policy=latest");
  EXPECT_EQ(url.path(), "/sse/news");
  EXPECT_EQ(url.query(), "policy=latest");
  EXPECT_EQ(url.authority(), "127.0.0.1:8080");
}

TEST(Url, DefaultsPortAndTarget) {
  const Url url = parse_ok("ws://localhost");
  EXPECT_EQ(url.scheme, Scheme::ws);
  EXPECT_EQ(url.port, 80);
  EXPECT_EQ(url.target, "/");
  EXPECT_EQ(url.query(), "");
}

TEST(Url, SchemeIsCaseInsensitiveAndQueryMayFollowTheHost) {
  const Url url = parse_ok("HTTP://h:1?topic=a");
  EXPECT_EQ(url.scheme, Scheme::http);
  EXPECT_EQ(url.target, "/?topic=a");
  EXPECT_EQ(url.port, 1);
}

// A long scheme is cut in the error line, and is never taken for a known
// one by what is left after the cut.
TEST(Url, SchemesCompareWithoutCaseAndShowCutShort) {
  EXPECT_TRUE(scheme_is("HtTpS", "https"));
  EXPECT_FALSE(scheme_is("https+x", "https"));
  EXPECT_FALSE(scheme_is("http", "https"));
  EXPECT_EQ(shown_scheme("GOPHER"), "gopher");
  EXPECT_EQ(shown_scheme(std::string(40, 'H')), std::string(16, 'h') + "...");
}

TEST(Url, DropsTheFragment) {
  EXPECT_EQ(parse_ok("http://h:9/sse/a#frag").target, "/sse/a");
  EXPECT_EQ(parse_ok("http://h:9#frag").target, "/");
}

TEST(Url, BracketedIpv6) {
  const Url url = parse_ok("ws://[::1]:9000/ws");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, 9000);
  EXPECT_EQ(url.authority(), "[::1]:9000");
}

TEST(Url, TlsSchemesCarryHttpAndWebSocketOverTlsOnPort443) {
  const Url https = parse_ok("https://example.com/sse/a");
  EXPECT_EQ(https.scheme, Scheme::http);
  EXPECT_TRUE(https.tls);
  EXPECT_EQ(https.port, 443);
  const Url wss = parse_ok("WSS://[::1]:8443/ws");
  EXPECT_EQ(wss.scheme, Scheme::ws);
  EXPECT_TRUE(wss.tls);
  EXPECT_EQ(wss.port, 8443);
  EXPECT_FALSE(parse_ok("http://h/").tls);
  EXPECT_FALSE(parse_ok("ws://h/").tls);
}

TEST(Url, OtherSchemesAreNamed) {
  EXPECT_NE(parse_error("ftp://h/x").find("'ftp'"), std::string::npos);
  // A long one is cut: the line stays short whatever the URL.
  EXPECT_EQ(parse_error("FTP" + std::string(100, 'x') + "://h/"),
            "unsupported scheme 'ftp" + std::string(13, 'x') + "...': use http://, https://, ws:// or wss://");
}

TEST(Url, RefusesMalformedAddresses) {
  parse_error("");
  parse_error("127.0.0.1:8080/sse/a");
  parse_error("://h/x");
  parse_error("http://");
  parse_error("http:///path");
  parse_error("http://:80/");
  parse_error("http://user@h/");
  parse_error("http://h /x");
  parse_error("http://h/x\n");
  parse_error("http://[::1/x");
  parse_error("http://[::1]x/");
}

TEST(Url, RefusesBadPorts) {
  EXPECT_NE(parse_error("http://h:0/").find("port"), std::string::npos);
  parse_error("http://h:65536/");
  parse_error("http://h:/");
  parse_error("http://h:8o/");
  parse_error("http://h:-1/");
  EXPECT_EQ(parse_ok("http://h:65535/").port, 65535);
}

}  // namespace
}  // namespace sluice::client
