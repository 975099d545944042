#include "proto/http1.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "support/feed_all_splits.hpp"

namespace sluice::proto::http1 {
namespace {

using namespace std::string_literals;
using test::Chunks;

// A copy of what the parser answered, so that it outlives the buffer.
struct Outcome {
  ParseStatus status = ParseStatus::need_more;
  std::size_t consumed = 0;
  int http_status = 0;
  std::string reason;
  Method method = Method::other;
  std::string method_text, target, path, query, authority;
  int version_minor = -1;
  bool keep_alive = false;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Outcome& o) {
    return os << "{status=" << static_cast<int>(o.status) << " consumed=" << o.consumed
              << " http=" << o.http_status << " reason=" << o.reason << " target=" << o.target
              << " headers=" << o.headers.size() << " body=" << testing::PrintToString(o.body)
              << "}";
  }
};

bool within(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

Outcome snapshot(const ParseResult& r, const RequestParser& parser, std::string_view buffer) {
  Outcome o{r.status, r.consumed, r.http_status, r.reason};
  if (r.status != ParseStatus::complete) return o;
  const Request& q = parser.request();
  EXPECT_TRUE(within(q.target, buffer) && within(q.method_text, buffer) && within(q.authority, buffer));
  o.method = q.method;
  o.method_text = q.method_text;
  o.target = q.target;
  o.path = q.path;
  o.query = q.query;
  o.authority = q.authority;
  o.version_minor = q.version_minor;
  o.keep_alive = q.keep_alive;
  for (const Header& h : q.headers) {
    EXPECT_TRUE(within(h.name, buffer) && within(h.value, buffer));
    o.headers.emplace_back(h.name, h.value);
  }
  o.body = q.body;
  return o;
}

// Plays the connection: each call sees every byte so far, in a buffer that
// has moved since the previous call while the old one is overwritten, so a
// pointer kept across calls would read garbage. Returns every request parsed
// (dropping each one's bytes, as a server does with pipelined requests) and
// the final non-complete answer.
std::vector<Outcome> feed_all(const Chunks& chunks, const Limits& limits) {
  RequestParser parser(limits);
  std::vector<Outcome> out;
  std::string buffers[2];
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    std::string& buf = buffers[i % 2];
    std::string& old = buffers[(i + 1) % 2];
    buf = old;
    buf.append(chunks[i]);
    old.assign(old.size(), '#');
    ParseResult r = parser.parse(buf);
    while (r.status == ParseStatus::complete) {
      out.push_back(snapshot(r, parser, buf));
      buf.erase(0, r.consumed);
      parser.reset();
      r = parser.parse(buf);
    }
    const bool last = i + 1 == chunks.size();
    if (r.status == ParseStatus::error || (last && !buf.empty())) {
      out.push_back(snapshot(r, parser, buf));
      break;
    }
  }
  return out;
}

std::string describe(const Chunks& chunks) {
  std::string s = "chunk sizes:";
  for (std::string_view c : chunks) s += " " + std::to_string(c.size());
  return s;
}

// Parses `input` whole, then checks that every way of splitting it gives the
// same outcomes. Returns the outcomes.
std::vector<Outcome> parse_everywhere(std::string_view input, const Limits& limits = {}) {
  const std::vector<Outcome> whole = feed_all({input}, limits);
  std::size_t mismatches = 0;
  std::string first;
  test::for_each_split(input, [&](const Chunks& chunks) {
    const std::vector<Outcome> got = feed_all(chunks, limits);
    if (got != whole && mismatches++ == 0) {
      first = describe(chunks) + " got " + testing::PrintToString(got);
    }
  });
  EXPECT_EQ(mismatches, 0u) << "whole: " << testing::PrintToString(whole) << "\n" << first;
  return whole;
}

// One request, whole and at every split.
Outcome parse_one(std::string_view input, const Limits& limits = {}) {
  const std::vector<Outcome> all = parse_everywhere(input, limits);
  EXPECT_EQ(all.size(), 1u) << testing::PrintToString(all);
  return all.empty() ? Outcome{} : all.front();
}

Outcome expect_complete(std::string_view input, const Limits& limits = {}) {
  const Outcome o = parse_one(input, limits);
  EXPECT_EQ(o.status, ParseStatus::complete) << o;
  EXPECT_EQ(o.consumed, input.size());
  return o;
}

void expect_error(std::string_view input, int http_status, const Limits& limits = {}) {
  const Outcome o = parse_one(input, limits);
  EXPECT_EQ(o.status, ParseStatus::error) << testing::PrintToString(std::string(input));
  EXPECT_EQ(o.http_status, http_status)
      << o.reason << " for " << testing::PrintToString(std::string(input));
}

std::string get_with(std::string_view fields) {
  return "GET / HTTP/1.1\r\nHost: h\r\n" + std::string(fields) + "\r\n";
}

std::string post_chunked(std::string_view chunks) {
  return "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(chunks);
}

TEST(Http1Parser, ParsesASimpleGet) {
  const Outcome o = expect_complete(
      "GET /sse/news?topic=a&x=%20 HTTP/1.1\r\nHost: example\r\nAccept:  text/event-stream "
      "\r\n\r\n");
  EXPECT_EQ(o.method, Method::get);
  EXPECT_EQ(o.method_text, "GET");
  EXPECT_EQ(o.target, "/sse/news?topic=a&x=%20");
  EXPECT_EQ(o.path, "/sse/news");
  EXPECT_EQ(o.query, "topic=a&x=%20");
  EXPECT_EQ(o.version_minor, 1);
  EXPECT_TRUE(o.keep_alive);
  using H = std::pair<std::string, std::string>;
  EXPECT_EQ(o.headers, (std::vector<H>{{"Host", "example"}, {"Accept", "text/event-stream"}}));
  EXPECT_EQ(o.body, "");
}

TEST(Http1Parser, SaysNeedMoreUntilTheHeaderSectionEnds) {
  RequestParser parser;
  const std::string input = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
  for (std::size_t n = 0; n < input.size(); ++n) {
    const ParseResult r = parser.parse(std::string_view(input).substr(0, n));
    ASSERT_EQ(r.status, ParseStatus::need_more) << n;
    EXPECT_EQ(r.consumed, 0u);
    EXPECT_EQ(r.http_status, 0);
  }
  EXPECT_EQ(parser.parse(input).status, ParseStatus::complete);
}

TEST(Http1Parser, NamesMethodsCaseSensitively) {
  const std::pair<const char*, Method> cases[] = {
      {"GET", Method::get},     {"HEAD", Method::head},  {"POST", Method::post},
      {"PUT", Method::put},     {"DELETE", Method::del}, {"OPTIONS", Method::options},
      {"PATCH", Method::other}, {"get", Method::other},  {"M-SEARCH", Method::other},
  };
  for (const auto& [text, method] : cases) {
    const Outcome o = expect_complete(std::string(text) + " / HTTP/1.1\r\nHost: h\r\n\r\n");
    EXPECT_EQ(o.method, method) << text;
    EXPECT_EQ(o.method_text, text);
  }
}

TEST(Http1Parser, SplitsPathAndQueryAtTheFirstQuestionMark) {
  const std::pair<const char*, std::pair<const char*, const char*>> cases[] = {
      {"/a", {"/a", ""}}, {"/a?", {"/a", ""}}, {"/a?b?c", {"/a", "b?c"}}, {"/?x=1", {"/", "x=1"}}};
  for (const auto& [target, want] : cases) {
    const Outcome o =
        expect_complete("GET " + std::string(target) + " HTTP/1.1\r\nHost: h\r\n\r\n");
    EXPECT_EQ(o.path, want.first) << target;
    EXPECT_EQ(o.query, want.second) << target;
  }
}

TEST(Http1Parser, AcceptsAsteriskOnlyForOptions) {
  const Outcome o = expect_complete("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(o.target, "*");
  expect_error("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400);
}

// absolute-form, which a server must accept (RFC 9112 3.2.2): its path is
// the target, its authority the host the request is for (host()).
TEST(Http1Parser, TakesAnAbsoluteFormTargetsPathAndHost) {
  Outcome o = expect_complete("GET http://example.com:8080/sse/x?topic=a HTTP/1.1\r\nHost: other\r\n\r\n");
  EXPECT_EQ(o.target, "/sse/x?topic=a");
  EXPECT_EQ(o.path, "/sse/x");
  EXPECT_EQ(o.query, "topic=a");
  EXPECT_EQ(o.authority, "example.com:8080");
  o = expect_complete("GET HTTPS://h/ HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(o.authority, "h");
  EXPECT_EQ(o.path, "/");
  EXPECT_EQ(expect_complete("GET / HTTP/1.1\r\nHost: h\r\n\r\n").authority, "");

  RequestParser parser;
  ASSERT_EQ(parser.parse("GET http://a:1/ HTTP/1.1\r\nHost: b\r\n\r\n").status, ParseStatus::complete);
  EXPECT_EQ(parser.request().host(), "a:1");
  parser.reset();
  ASSERT_EQ(parser.parse("GET / HTTP/1.1\r\nHost: b\r\n\r\n").status, ParseStatus::complete);
  EXPECT_EQ(parser.request().host(), "b");
}

TEST(Http1Parser, RejectsTargetsNotInOriginForm) {
  expect_error("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n", 400);      // absolute-form without a path
  expect_error("GET http:///p HTTP/1.1\r\nHost: h\r\n\r\n", 400);     // nor a host
  expect_error("GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400);    // naming a user
  expect_error("GET http://h?q/ HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET h:80 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET /a\tb HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET /\x80 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
}

TEST(Http1Parser, RejectsMalformedRequestLines) {
  expect_error("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400);
  expect_error("GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error(" / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET /\r\nHost: h\r\n\r\n", 400);
  expect_error("GET\r\n\r\n", 400);
}

TEST(Http1Parser, RefusesAPeerThatIsNotSpeakingHttpBeforeAnyLineEnd) {
  expect_error("\x16\x03\x01\x02\x00\x01"s, 400);  // a TLS ClientHello
  expect_error("GE\x7f", 400);
  expect_error(" ", 400);
  const Outcome partial = parse_one("POS");
  EXPECT_EQ(partial.status, ParseStatus::need_more);
}

TEST(Http1Parser, AcceptsOnlyHttp10And11) {
  const Outcome o = expect_complete("GET / HTTP/1.0\r\n\r\n");
  EXPECT_EQ(o.version_minor, 0);
  for (const char* v : {"HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3.1"}) {
    expect_error("GET / " + std::string(v) + "\r\nHost: h\r\n\r\n", 505);
  }
  for (const char* v : {"HTTP/1.10", "HTTP/1", "http/1.1", "HTTP/1.x", "HTTP 1.1", "HTTP/11"}) {
    expect_error("GET / " + std::string(v) + "\r\nHost: h\r\n\r\n", 400);
  }
}

TEST(Http1Parser, AcceptsCrlfOnly) {
  expect_error("GET / HTTP/1.1\nHost: h\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\rHost: h\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\n\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\n\r\r", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400);
  expect_error("\n", 400);
}

TEST(Http1Parser, SkipsOneEmptyLineBeforeTheRequestLine) {
  const Outcome o = expect_complete("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(o.target, "/");
  expect_error("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
}

TEST(Http1Parser, RejectsMalformedFieldLines) {
  expect_error(get_with("X : y\r\n"), 400);
  expect_error(get_with("X\t: y\r\n"), 400);
  expect_error(get_with("X: y\r\n folded\r\n"), 400);
  expect_error(get_with("X: y\r\n\tfolded\r\n"), 400);
  expect_error("GET / HTTP/1.1\r\n Host: h\r\n\r\n", 400);
  expect_error(get_with("no colon\r\n"), 400);
  expect_error(get_with(": empty name\r\n"), 400);
  expect_error(get_with("X(y): z\r\n"), 400);
}

TEST(Http1Parser, RejectsControlCharactersInValues) {
  expect_error(get_with("X: a\0b\r\n"s), 400);
  expect_error(get_with("X: a\x7f\r\n"), 400);
  expect_error(get_with("X: a\x1b[0m\r\n"), 400);
  const Outcome o = expect_complete(get_with("X: a\tb \xc3\xa9\r\nEmpty:\r\nSpaces: \t \r\n"));
  ASSERT_EQ(o.headers.size(), 4u);
  EXPECT_EQ(o.headers[1].second, "a\tb \xc3\xa9");
  EXPECT_EQ(o.headers[2].second, "");
  EXPECT_EQ(o.headers[3].second, "");
}

TEST(Http1Parser, RequiresExactlyOneHostInHttp11) {
  expect_error("GET / HTTP/1.1\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nhost: a\r\nHost: b\r\n\r\n", 400);
  expect_error("GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", 400);
  expect_complete("GET / HTTP/1.1\r\nhOsT: a\r\n\r\n");
}

TEST(Http1Parser, ReadsAContentLengthBody) {
  const Outcome o =
      expect_complete("POST /pub HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world");
  EXPECT_EQ(o.method, Method::post);
  EXPECT_EQ(o.body, "hello world");
  EXPECT_EQ(expect_complete(get_with("Content-Length: 2\r\n") + "hi").body, "hi");
  EXPECT_EQ(expect_complete(get_with("Content-Length: 0\r\n")).body, "");
  EXPECT_EQ(expect_complete(get_with("Content-Length: 2\r\nContent-Length: 2\r\n") + "ok").body,
            "ok");
}

TEST(Http1Parser, RejectsBadContentLength) {
  for (const char* v : {"abc", "-1", "+5", "1 2", "5,5", "0x5", "", "1.0"}) {
    expect_error(get_with("Content-Length: " + std::string(v) + "\r\n"), 400);
  }
  expect_error(get_with("Content-Length: 18446744073709551616\r\n"), 400);
  expect_error(get_with("Content-Length: 99999999999999999999999\r\n"), 400);
  expect_error(get_with("Content-Length: 1\r\nContent-Length: 2\r\n") + "ab", 400);
}

TEST(Http1Parser, RejectsContentLengthWithTransferEncoding) {
  expect_error(
      "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
      "0\r\n\r\n",
      400);
  expect_error(get_with("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"), 400);
}

TEST(Http1Parser, ImplementsOnlyChunked) {
  expect_error(get_with("Transfer-Encoding: gzip\r\n"), 501);
  expect_error(get_with("Transfer-Encoding: gzip, chunked\r\n"), 501);
  // Chunked twice is a malformed request, not a coding this server lacks.
  expect_error(get_with("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"), 400);
  EXPECT_EQ(parse_one(get_with("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n")).reason,
            "Transfer-Encoding given more than once");
  expect_error("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
  EXPECT_EQ(
      expect_complete(get_with("Transfer-Encoding: Chunked\r\n") + "1\r\nx\r\n0\r\n\r\n").body,
      "x");
}

TEST(Http1Parser, DecodesChunkedBodies) {
  EXPECT_EQ(expect_complete(post_chunked("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")).body,
            "hello world");
  EXPECT_EQ(expect_complete(post_chunked("0\r\n\r\n")).body, "");
  EXPECT_EQ(expect_complete(post_chunked("A\r\n0123456789\r\n000\r\n\r\n")).body, "0123456789");
  EXPECT_EQ(expect_complete(post_chunked("0000000000000000000001\r\nz\r\n0\r\n\r\n")).body, "z");
}

// Expect: 100-continue with a body still to come: the caller is told once,
// after the head, to send 100 Continue; not for HTTP/1.0 (which cannot take
// an interim response), nor without a body, nor for other expectations.
TEST(Http1Parser, AsksForOneContinueWhenTheHeadExpectsItAndABodyIsToCome) {
  const auto owed_after_head = [](const std::string& head) {
    RequestParser parser;
    const ParseResult result = parser.parse(head);
    const bool first = result.status == ParseStatus::need_more && parser.take_continue();
    EXPECT_FALSE(parser.take_continue()) << "once per request";
    return first;
  };
  EXPECT_TRUE(owed_after_head("POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"));
  EXPECT_TRUE(owed_after_head("POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n"));
  EXPECT_FALSE(owed_after_head("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"));
  EXPECT_FALSE(owed_after_head("POST /p HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"));
  EXPECT_FALSE(owed_after_head("POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_FALSE(owed_after_head("POST /p HTTP/1.1\r\nHost: h\r\nExpect: something\r\nContent-Length: 5\r\n\r\n"));

  RequestParser parser;
  const std::string request = "POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello";
  EXPECT_EQ(parser.parse(request).status, ParseStatus::complete);
  parser.reset();
  EXPECT_FALSE(parser.take_continue()) << "a reset forgets it";
}

TEST(Http1Parser, IgnoresChunkExtensions) {
  EXPECT_EQ(
      expect_complete(post_chunked("3;name=v\r\nabc\r\n2 ; x = \"q\"\r\nde\r\n0;last\r\n\r\n"))
          .body,
      "abcde");
}

TEST(Http1Parser, ParsesAndDiscardsTrailers) {
  const Outcome o = expect_complete(post_chunked("2\r\nhi\r\n0\r\nX-Sum: 12\r\nY: z\r\n\r\n"));
  EXPECT_EQ(o.body, "hi");
  EXPECT_EQ(o.headers.size(), 2u);
  expect_error(post_chunked("0\r\nbad trailer\r\n\r\n"), 400);
  expect_error(post_chunked("0\r\nX: a\0\r\n\r\n"s), 400);
  expect_error(post_chunked("0\r\n folded\r\n\r\n"), 400);
}

TEST(Http1Parser, RejectsMalformedChunks) {
  expect_error(post_chunked("g\r\n"), 400);
  expect_error(post_chunked(";x\r\n"), 400);
  expect_error(post_chunked("5 \r\nhello\r\n0\r\n\r\n"), 400);
  expect_error(post_chunked("5x\r\nhello\r\n0\r\n\r\n"), 400);
  expect_error(post_chunked("-5\r\n"), 400);
  expect_error(post_chunked("5\nhello\r\n0\r\n\r\n"), 400);
  expect_error(post_chunked("5\r\nhelloX\r\n0\r\n\r\n"), 400);
  expect_error(post_chunked("5\r\nhello\rX0\r\n\r\n"), 400);
  expect_error(post_chunked("5\r\nhello\n0\r\n\r\n"), 400);
  expect_error(post_chunked("1;\x01\r\n"), 400);
  expect_error(post_chunked("10000000000000000\r\n"), 400);
  expect_error(post_chunked("1;" + std::string(1100, 'e') + "\r\n"), 400);
}

TEST(Http1Parser, AllowsAChunkSizeLineOf1024Bytes) {
  const std::string ext = ";" + std::string(1022, 'e');
  EXPECT_EQ(expect_complete(post_chunked("1" + ext + "\r\nx\r\n0\r\n\r\n")).body, "x");
  expect_error(post_chunked("1" + ext + "e\r\nx\r\n0\r\n\r\n"), 400);
}

TEST(Http1Parser, FollowsKeepAliveRules) {
  const std::pair<std::string, bool> cases[] = {
      {"GET / HTTP/1.1\r\nHost: h\r\n\r\n", true},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, CLOSE\r\n\r\n", false},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade\r\nConnection: close\r\n\r\n", false},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: closed\r\n\r\n", true},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n\r\n", true},
      {"GET / HTTP/1.0\r\n\r\n", false},
      {"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: foo ,keep-alive\r\n\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false},
      {"GET / HTTP/1.0\r\nX-Connection: keep-alive\r\n\r\n", false},
  };
  for (const auto& [input, keep_alive] : cases) {
    EXPECT_EQ(expect_complete(input).keep_alive, keep_alive) << input;
  }
}

TEST(Http1Parser, ParsesPipelinedRequests) {
  const std::string a = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
  const std::string b = "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz";
  const std::string c =
      "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
  const std::string d = "GET /d HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
  const std::vector<Outcome> all = parse_everywhere(a + b + c + d + "GET /e HT");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].target, "/a");
  EXPECT_EQ(all[1].body, "xyz");
  EXPECT_EQ(all[2].body, "hi");
  EXPECT_FALSE(all[3].keep_alive);
  EXPECT_EQ(all[4].status, ParseStatus::need_more);
  EXPECT_EQ(all[0].consumed, a.size());
  EXPECT_EQ(all[1].consumed, b.size());
  EXPECT_EQ(all[2].consumed, c.size());
}

TEST(Http1Parser, ReportsAnErrorAfterAPipelinedRequest) {
  const std::vector<Outcome> all =
      parse_everywhere("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].status, ParseStatus::complete);
  EXPECT_EQ(all[1].http_status, 400);
}

TEST(Http1Parser, LimitsTheRequestLine) {
  const Limits limits{.max_request_line = 40};
  const std::string at = "GET /" + std::string(40 - 14, 'a') + " HTTP/1.1";
  ASSERT_EQ(at.size(), 40u);
  expect_complete(at + "\r\nHost: h\r\n\r\n", limits);
  const std::string over = "GET /" + std::string(40 - 13, 'a') + " HTTP/1.1";
  expect_error(over + "\r\nHost: h\r\n\r\n", 414, limits);
  // Decided once the 41st byte arrives, without waiting for the CRLF.
  expect_error(std::string(41, 'G'), 414, limits);
  const Outcome early = parse_one(std::string(40, 'G'), limits);
  EXPECT_EQ(early.status, ParseStatus::need_more);
}

TEST(Http1Parser, LimitsTheRequestLineAtTheDefault) {
  const std::string at = "GET /" + std::string(8192 - 14, 'a') + " HTTP/1.1\r\nHost: h\r\n\r\n";
  RequestParser parser;
  EXPECT_EQ(parser.parse(at).status, ParseStatus::complete);
  RequestParser over;
  const ParseResult r = over.parse("GET /" + std::string(8192 - 4, 'a'));
  EXPECT_EQ(r.status, ParseStatus::error);
  EXPECT_EQ(r.http_status, 414);
}

TEST(Http1Parser, LimitsHeaderBytes) {
  const Limits limits{.max_header_bytes = 30};
  // "Host: h\r\n" is 9 bytes; "X: " + 16 + "\r\n" is 21: 30 in all.
  expect_complete(get_with("X: " + std::string(16, 'v') + "\r\n"), limits);
  expect_error(get_with("X: " + std::string(17, 'v') + "\r\n"), 431, limits);
  // Decided as soon as the line cannot fit, before its CRLF arrives.
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(17, 'v'), 431, limits);
  EXPECT_EQ(parse_one("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(16, 'v'), limits).status,
            ParseStatus::need_more);
}

TEST(Http1Parser, LimitsHeaderBytesAtTheDefault) {
  // 16 lines of 1024 bytes, the first being "Host: h\r\n" and a shorter one.
  std::string fields = "X: " + std::string(1024 - 5 - 9, 'v') + "\r\n";
  for (int i = 0; i < 15; ++i) fields += "X: " + std::string(1024 - 5, 'v') + "\r\n";
  RequestParser at;
  EXPECT_EQ(at.parse(get_with(fields)).status, ParseStatus::complete);
  RequestParser over;
  const ParseResult r = over.parse(get_with("Y" + fields));
  EXPECT_EQ(r.http_status, 431);
}

TEST(Http1Parser, TrailersCountAgainstHeaderLimits) {
  const Limits bytes{.max_header_bytes = 70};
  // Header lines: Host (9) + Transfer-Encoding (28) = 37; trailer "T: " + 28 + CRLF = 33.
  expect_complete(post_chunked("0\r\nT: " + std::string(28, 't') + "\r\n\r\n"), bytes);
  expect_error(post_chunked("0\r\nT: " + std::string(29, 't') + "\r\n\r\n"), 431, bytes);
  const Limits count{.max_headers = 3};
  expect_complete(post_chunked("0\r\nT: 1\r\n\r\n"), count);
  expect_error(post_chunked("0\r\nT: 1\r\nU: 2\r\n\r\n"), 431, count);
}

TEST(Http1Parser, LimitsTheNumberOfHeaders) {
  const Limits limits{.max_headers = 4};
  expect_complete(get_with("A: 1\r\nB: 2\r\nC: 3\r\n"), limits);
  expect_error(get_with("A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n"), 431, limits);
  std::string fields;
  for (int i = 0; i < 63; ++i) fields += "X: 1\r\n";
  RequestParser at;
  EXPECT_EQ(at.parse(get_with(fields)).status, ParseStatus::complete);
  EXPECT_EQ(at.request().headers.size(), 64u);
  RequestParser over;
  EXPECT_EQ(over.parse(get_with(fields + "X: 1\r\n")).http_status, 431);
}

TEST(Http1Parser, LimitsContentLengthBeforeTheBodyArrives) {
  const Limits limits{.max_body = 10};
  EXPECT_EQ(expect_complete(get_with("Content-Length: 10\r\n") + "0123456789", limits).body,
            "0123456789");
  expect_error(get_with("Content-Length: 11\r\n"), 413, limits);
  RequestParser parser;
  EXPECT_EQ(parser.parse(get_with("Content-Length: 1048577\r\n")).http_status, 413);
}

TEST(Http1Parser, LimitsTheChunkedBodyAsItIsDecoded) {
  const Limits limits{.max_body = 10};
  EXPECT_EQ(expect_complete(post_chunked("6\r\n012345\r\n4\r\n6789\r\n0\r\n\r\n"), limits).body,
            "0123456789");
  // Decided at the chunk-size line that would pass the limit.
  expect_error(post_chunked("6\r\n012345\r\n5\r\n"), 413, limits);
  expect_error(post_chunked("b\r\n"), 413, limits);
  expect_error(post_chunked("ffffffffffffffff\r\n"), 413, limits);
}

TEST(Http1Parser, FindsHeadersCaseInsensitively) {
  RequestParser parser;
  const std::string input = get_with("Last-Event-ID: 7\r\nlast-event-id: 8\r\nEmpty:\r\n");
  ASSERT_EQ(parser.parse(input).status, ParseStatus::complete);
  const Request& r = parser.request();
  EXPECT_EQ(r.header("LAST-EVENT-ID"), "7");
  EXPECT_EQ(r.header("host"), "h");
  EXPECT_EQ(r.header("Accept"), "");
  EXPECT_FALSE(r.has_header("Accept"));
  EXPECT_TRUE(r.has_header("empty"));
  EXPECT_EQ(r.header("Empty"), "");
  EXPECT_EQ(r.header_count("last-event-ID"), 2u);
  EXPECT_EQ(r.header_count("empty"), 1u);
  EXPECT_EQ(r.header_count("Accept"), 0u);
}

TEST(Http1Parser, RepeatsItsAnswerUntilReset) {
  RequestParser parser;
  std::string buf = get_with("") + "GET /next";
  const ParseResult first = parser.parse(buf);
  ASSERT_EQ(first.status, ParseStatus::complete);
  std::string moved = buf + " HTTP/1.1";
  buf.assign(buf.size(), '#');
  const ParseResult again = parser.parse(moved);
  EXPECT_EQ(again.status, ParseStatus::complete);
  EXPECT_EQ(again.consumed, first.consumed);
  EXPECT_EQ(parser.request().header("Host"), "h");
  EXPECT_EQ(parser.request().target.data(), moved.data() + 4);

  RequestParser failing;
  EXPECT_EQ(failing.parse("GET / HTTP/1.1\n").http_status, 400);
  const ParseResult still = failing.parse("GET / HTTP/1.1\nHost: h\r\n\r\n");
  EXPECT_EQ(still.status, ParseStatus::error);
  EXPECT_EQ(still.http_status, 400);
  failing.reset();
  EXPECT_EQ(failing.parse(get_with("")).status, ParseStatus::complete);
}

TEST(Http1Parser, RejectsInputThatShrank) {
  RequestParser parser;
  ASSERT_EQ(parser.parse("GET / HTTP/1.1\r\nHo").status, ParseStatus::need_more);
  const ParseResult r = parser.parse("GET");
  EXPECT_EQ(r.status, ParseStatus::error);
  EXPECT_EQ(r.http_status, 400);
}

TEST(Http1Parser, ReusesTheChunkedBodyBufferAfterReset) {
  RequestParser parser;
  const std::string input = post_chunked("40\r\n" + std::string(64, 'a') + "\r\n0\r\n\r\n");
  ASSERT_EQ(parser.parse(input).status, ParseStatus::complete);
  const char* first = parser.request().body.data();
  EXPECT_FALSE(within(parser.request().body, input));
  parser.reset();
  const std::string second = post_chunked("20\r\n" + std::string(32, 'b') + "\r\n0\r\n\r\n");
  ASSERT_EQ(parser.parse(second).status, ParseStatus::complete);
  EXPECT_EQ(parser.request().body, std::string(32, 'b'));
  EXPECT_EQ(parser.request().body.data(), first);
}

TEST(Http1Parser, ResetForgetsThePreviousRequest) {
  RequestParser parser;
  const std::string first = get_with("X: 1\r\nConnection: close\r\n");
  ASSERT_EQ(parser.parse(first).status, ParseStatus::complete);
  parser.reset();
  const std::string second = "GET /two HTTP/1.1\r\nHost: h\r\n\r\n";
  ASSERT_EQ(parser.parse(second).status, ParseStatus::complete);
  EXPECT_EQ(parser.request().target, "/two");
  EXPECT_EQ(parser.request().headers.size(), 1u);
  EXPECT_TRUE(parser.request().keep_alive);
  EXPECT_FALSE(parser.request().has_header("X"));
}

TEST(Http1StatusReason, NamesEveryStatusSluiceSends) {
  const std::pair<int, const char*> cases[] = {
      {200, "OK"},
      {202, "Accepted"},
      {204, "No Content"},
      {304, "Not Modified"},
      {400, "Bad Request"},
      {401, "Unauthorized"},
      {403, "Forbidden"},
      {404, "Not Found"},
      {405, "Method Not Allowed"},
      {408, "Request Timeout"},
      {413, "Content Too Large"},
      {414, "URI Too Long"},
      {426, "Upgrade Required"},
      {429, "Too Many Requests"},
      {431, "Request Header Fields Too Large"},
      {500, "Internal Server Error"},
      {501, "Not Implemented"},
      {503, "Service Unavailable"},
      {504, "Gateway Timeout"},
      {505, "HTTP Version Not Supported"},
  };
  for (const auto& [status, reason] : cases) EXPECT_STREQ(status_reason(status), reason);
  EXPECT_STREQ(status_reason(299), "Unknown");
}

// A chunked body is joined into a buffer of the parser's own; its growth
// past the resting size is charged, and a refusal names the limit: 413 for
// the connection's share, 503 for the server's.
TEST(Http1Parser, AChunkedBodyTheAccountRefusesGets413Or503) {
  const std::string chunk = std::string(40000, 'x');
  const std::string body = post_chunked("9c40\r\n" + chunk + "\r\n0\r\n\r\n");
  buf::MemoryAccount small_share(nullptr, 1000);
  RequestParser over_share({.account = &small_share});
  const ParseResult share = over_share.parse(body);
  EXPECT_EQ(share.http_status, 413);
  EXPECT_NE(std::string_view(share.reason).find("limits.connection_bytes"), std::string_view::npos);
  buf::MemoryCap full(1000);
  buf::MemoryAccount large_share(&full, 1 << 20);
  RequestParser over_server({.account = &large_share});
  const ParseResult server = over_server.parse(body);
  EXPECT_EQ(server.http_status, 503);
  EXPECT_NE(std::string_view(server.reason).find("limits.server_bytes"), std::string_view::npos);
  buf::MemoryAccount enough(nullptr, 1 << 20);
  RequestParser fits({.account = &enough});
  ASSERT_EQ(fits.parse(body).status, ParseStatus::complete);
  EXPECT_EQ(fits.request().body, chunk);
}

TEST(Http1Parser, ResetGivesBackALargeChunkedBody) {
  buf::MemoryAccount account(nullptr, 1 << 20);
  RequestParser parser({.account = &account});
  const std::string body = post_chunked("9c40\r\n" + std::string(40000, 'x') + "\r\n0\r\n\r\n");
  ASSERT_EQ(parser.parse(body).status, ParseStatus::complete);
  EXPECT_GT(account.charged(), 0u);
  parser.reset();
  EXPECT_EQ(account.charged(), 0u);
}

}  // namespace
}  // namespace sluice::proto::http1
