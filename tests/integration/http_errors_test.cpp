// Malformed and oversized requests from raw sockets: the right status, a
// closed connection, and no harm to anyone else's stream.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "test_client.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

struct BadRequest {
  const char* name;
  std::string bytes;
  int status;
  std::string names = {};  // what the reply's line must say: the key and its value
};

// `n` POST /pub/p of one byte each, in one string.
std::string pipelined_posts(int n) {
  std::string pipeline;
  for (int i = 0; i < n; ++i) pipeline += "POST /pub/p HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\na";
  return pipeline;
}

std::string many_headers(int n) {
  std::string lines;
  for (int i = 0; i < n; ++i) lines += "X-" + std::to_string(i) + ": v\r\n";
  return lines;
}

std::vector<BadRequest> bad_requests() {
  return {
      {"garbage", std::string("\x16\x03\x01\x02\x00 hello\r\n\r\n", 14), 400},
      {"no_host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "400 Bad Request: HTTP/1.1 request without Host"},
      {"two_hosts", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n", 400,
       "400 Bad Request: more than one Host"},
      {"length_and_chunked",
       "POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
       "400 Bad Request: both Content-Length and Transfer-Encoding"},
      {"bare_lf", "GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n", 400, "400 Bad Request: bare LF"},
      {"long_uri", "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414,
       "request line over http.max_request_line (8192 bytes)"},
      {"huge_headers", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'b') + "\r\n\r\n", 431,
       "header section over http.max_header_bytes (16384 bytes)"},
      {"many_headers", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many_headers(70) + "\r\n", 431,
       "more header fields than http.max_headers (64 fields)"},
      {"http2_version", "GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n", 505},
      {"body_too_large", "POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n", 413,
       "request body over http.max_body (1048576 bytes)"},
      {"bad_content_length", "POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1x\r\n\r\n", 400},
      {"unknown_coding", "POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"obs_fold", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n folded\r\n\r\n", 400},
  };
}

TEST(HttpErrors, EachBadRequestGetsItsStatusAndAClosedConnection) {
  RunningServer server;
  SseSubscriber watcher(server.port(), "/sse/live");
  ASSERT_TRUE(watcher.opened());
  std::size_t published = 0;
  for (const BadRequest& bad : bad_requests()) {
    SCOPED_TRACE(bad.name);
    TestClient client(server.port());
    client.send(bad.bytes);
    const HttpReply reply = read_reply(client);
    EXPECT_EQ(reply.status, bad.status);
    EXPECT_NE(reply.body.find(bad.names), std::string::npos) << reply.body;
    EXPECT_NE(reply.head.find("Connection: close"), std::string::npos);
    EXPECT_TRUE(client.read_until_closed());
    // Everyone else is still served.
    ASSERT_EQ(http_request(server.port(), "POST", "/pub/live", bad.name).status, 200);
    ASSERT_TRUE(watcher.wait_for(++published));
    EXPECT_EQ(watcher.events().back().data, bad.name);
  }
}

// A request that cannot be whole within the input buffer (here a chunked
// body whose framing outweighs its bytes) is answered with one line naming
// receive.budget_bytes and its value, as http.max_body is.
TEST(HttpErrors, ARequestPastTheReceiveBudgetIsAnsweredWithTheKeyAndTheLimit) {
  server::Config config;
  config.connection.receive_budget = 16 << 10;
  RunningServer server(config);
  TestClient client(server.port());
  std::string request = "POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  while (request.size() < (20 << 10)) request += "1\r\na\r\n";
  client.send(request);
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 413);
  EXPECT_EQ(reply.body, "413 Content Too Large: request over receive.budget_bytes (16384 bytes)\n");
}

// A body over http.max_body, announced by Content-Length or met in a
// chunk-size line, is answered with one line naming the key and the limit.
TEST(HttpErrors, ABodyPastMaxBodyIsAnsweredWithTheKeyAndTheLimit) {
  server::Config config;
  config.http.max_body = 8 << 10;
  RunningServer server(config);
  const std::string expected = "413 Content Too Large: request body over http.max_body (8192 bytes)\n";
  for (const std::string framing : {"Content-Length: 9000\r\n\r\n", "Transfer-Encoding: chunked\r\n\r\n2328\r\n"}) {
    SCOPED_TRACE(framing);
    TestClient client(server.port());
    client.send("POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\n" + framing);
    const HttpReply reply = read_reply(client);
    EXPECT_EQ(reply.status, 413);
    EXPECT_EQ(reply.body, expected);
  }
}

// With the defaults, the largest body http.max_body lets in is taken
// whole, with a head of the largest the parser takes beside it, plain or
// chunked; one byte more is refused by the body's own limit.
TEST(HttpErrors, ABodyOfExactlyMaxBodyIsTakenWithTheDefaults) {
  RunningServer server;
  const server::Config defaults;
  const std::string body(defaults.http.max_body, 'x');
  const std::string padding(defaults.http.max_header_bytes - 100, 'p');
  const std::string target = "/pub/a?x=" + std::string(defaults.http.max_request_line - 30, 'q');
  TestClient plain(server.port());
  plain.send("POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + padding + "\r\nContent-Length: " +
             std::to_string(body.size()) + "\r\n\r\n" + body);
  const HttpReply taken = read_reply(plain);
  EXPECT_EQ(taken.status, 200) << taken.body;
  TestClient chunked(server.port());
  chunked.send("POST /pub/a HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n" + body +
               "\r\n0\r\n\r\n");
  const HttpReply taken_chunked = read_reply(chunked);
  EXPECT_EQ(taken_chunked.status, 200) << taken_chunked.body;
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/a", body + "x").body,
            "413 Content Too Large: request body over http.max_body (1048576 bytes)\n");
}

TEST(HttpErrors, UnknownPathAndWrongMethod) {
  RunningServer server;
  EXPECT_EQ(http_request(server.port(), "GET", "/nope").status, 404);
  const HttpReply wrong = http_request(server.port(), "GET", "/pub/a");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_NE(wrong.head.find("Allow: POST"), std::string::npos);
  EXPECT_EQ(http_request(server.port(), "POST", "/sse/a").status, 405);
  EXPECT_EQ(http_request(server.port(), "GET", "/healthz").status, 200);
}

TEST(HttpErrors, BadTopicAndEventNamesAreRefused) {
  RunningServer server;
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/a%20b", "x").status, 400);
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/" + std::string(200, 't'), "x").status, 400);
  EXPECT_EQ(http_request(server.port(), "POST", "/pub/ok?event=a%0Ab", "x").status, 400);
  EXPECT_EQ(http_request(server.port(), "GET", "/sse").status, 400);
  EXPECT_EQ(http_request(server.port(), "GET", "/sse/bad%zz").status, 400);
}

TEST(HttpErrors, TheTopicNameRuleSpellsTheConfiguredLimit) {
  server::Config config;
  config.hub.max_topic_name = 16;
  RunningServer server(config);
  const HttpReply reply = http_request(server.port(), "POST", "/pub/" + std::string(17, 't'), "x");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body, "bad topic name: use 1-16 of [A-Za-z0-9_.:-] (topics.max_name)\n");
}

TEST(HttpErrors, AStreamOfTooManyTopicsOrABadNameIsToldTheKey) {
  server::Config config;
  config.max_topics_per_connection = 2;
  config.hub.max_topic_name = 16;
  RunningServer server(config);
  HttpReply reply = http_request(server.port(), "GET", "/sse?topic=a&topic=b&topic=c");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body, "more topics than one stream may follow (2, topics.max_per_connection)\n");
  reply = http_request(server.port(), "GET", "/sse/" + std::string(17, 't'));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body, "bad topic name: use 1-16 of [A-Za-z0-9_.:-] (topics.max_name)\n");
}

// A policy the server does not offer is refused with the ones it does.
TEST(HttpErrors, APolicyNotOfferedIsToldWithTheOnesThatAre) {
  server::Config config;
  config.policy.allowed = (1u << static_cast<unsigned>(Policy::fifo)) | (1u << static_cast<unsigned>(Policy::latest));
  RunningServer server(config);
  for (const char* asked : {"bogus", "drop-oldest"}) {
    const HttpReply reply = http_request(server.port(), "GET", std::string("/sse/t?policy=") + asked);
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(reply.body,
              std::string("policy '") + asked + "' is not offered here: ask for one of fifo, latest (policy.allow)\n");
  }
}

// /ws/{topic} takes ?policy= as an event stream does: one the server does
// not offer is a 400 naming those it does (before, any value was taken
// and ignored), and one it offers is the subscription's: under
// drop-oldest a reader that stops reading is told what it lost and stays
// (under the server's fifo it would be closed 1008).
TEST(HttpErrors, ATopicWebSocketTakesItsPolicyFromTheQuery) {
  server::Config config;
  config.policy.allowed =
      (1u << static_cast<unsigned>(Policy::fifo)) | (1u << static_cast<unsigned>(Policy::drop_oldest));
  config.connection.send.max_frames = 4;
  RunningServer server(config);
  const HttpReply refused = http_request(server.port(), "GET", "/ws/t?policy=latest");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.body, "policy 'latest' is not offered here: ask for one of fifo, drop-oldest (policy.allow)\n");
  // Two are refused rather than one picked; a percent-encoded one is read
  // as its text.
  const HttpReply two = http_request(server.port(), "GET", "/ws/t?policy=fifo&policy=drop-oldest");
  EXPECT_EQ(two.status, 400);
  EXPECT_EQ(two.body, "more than one policy in the query\n");
  ws::WsTestClient encoded(server.port());
  EXPECT_EQ(encoded.upgrade({.path = "/ws/t?policy=drop%2Doldest"}).status, 101);

  ws::WsTestClient reader(server.port(), 4096);
  ASSERT_EQ(reader.upgrade({.path = "/ws/t?policy=drop-oldest"}).status, 101);
  TestClient publisher(server.port());
  const std::string last = std::string(8000, 'e') + "63";
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(publish(publisher, "/pub/t", i == 63 ? last : std::string(8000, 'e') + std::to_string(i)), 200);
  }
  bool told = false;
  for (std::optional<ws::ServerFrame> m = reader.read_message(); m; m = reader.read_message()) {
    ASSERT_NE(m->opcode, ws::kClose) << m->payload;
    told = told || m->payload.starts_with(R"({"sluice":"dropped")");
    if (m->payload == last) break;
  }
  EXPECT_TRUE(told) << "the reader is told what it lost";
}

// A HEAD's reply is its head alone, Content-Length saying what a GET's
// body would be: a client reads the next reply right after it. Before, the
// body followed, and a pipelining client read it as the next reply.
TEST(HttpErrors, AHeadIsAnsweredWithTheHeadAloneAndThePipelineGoesOn) {
  RunningServer server;
  TestClient client(server.port());
  client.send(
      "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
      "HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(client.read_until_contains("ok\n"));
  const std::string& replies = client.buffer();
  const std::size_t second = replies.find("HTTP/1.1 ", 1);
  ASSERT_NE(second, std::string::npos) << replies;
  EXPECT_EQ(replies.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << replies;
  EXPECT_NE(replies.find("Content-Length: 3\r\n"), std::string::npos) << replies;
  EXPECT_EQ(replies.substr(second - 4, 4), "\r\n\r\n") << "the head alone: " << replies;
  EXPECT_EQ(replies.compare(second, 15, "HTTP/1.1 200 OK"), 0) << "HEAD /metrics: " << replies;
  const std::size_t third = replies.find("HTTP/1.1 ", second + 1);
  ASSERT_NE(third, std::string::npos) << replies;
  EXPECT_EQ(replies.substr(third - 4, 4), "\r\n\r\n") << replies;
  EXPECT_TRUE(replies.ends_with("\r\n\r\nok\n")) << replies;

  // Right after a HEAD, a refusal of the next request keeps its body.
  client.buffer().clear();
  client.send("HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(client.read_until_contains("\r\n\r\n"));  // the head alone: read_reply would wait for a body
  ASSERT_EQ(client.buffer().rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << client.buffer();
  client.buffer().clear();
  client.send("GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n");
  const HttpReply refused = read_reply(client);
  EXPECT_EQ(refused.status, 414);
  EXPECT_NE(refused.body.find("http.max_request_line"), std::string::npos) << refused.head << refused.body;
}

// An absolute-form target is served by its path, and its authority is the
// name judged against http.allowed_hosts, whatever Host says.
TEST(HttpErrors, AnAbsoluteFormTargetIsServedAndItsHostIsTheOneJudged) {
  RunningServer server;
  TestClient client(server.port());
  client.send("GET http://127.0.0.1:" + std::to_string(server.port()) + "/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 200) << reply.head;
  EXPECT_EQ(reply.body, "ok\n");
  client.send("GET http://rebound.example/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  reply = read_reply(client);
  EXPECT_EQ(reply.status, 421) << reply.head;
}

TEST(HttpErrors, KeepAliveAndPipelinedRequestsAreAnsweredInOrder) {
  RunningServer server;
  TestClient client(server.port());
  client.send(
      "POST /pub/p HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\na"
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
      "POST /pub/p HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n");
  const HttpReply first = read_reply(client);
  const HttpReply second = read_reply(client);
  const HttpReply third = read_reply(client);
  EXPECT_NE(first.body.find(":1\""), std::string::npos);
  EXPECT_EQ(second.body, "ok\n");
  EXPECT_NE(third.body.find(":2\""), std::string::npos);
  EXPECT_FALSE(client.eof());
}

// Replies to a pipeline share blocks, so far more requests than
// send.control_frames are answered between two reads of the socket; every
// one is answered, in order, whatever the lane's size.
TEST(HttpErrors, APipelineLongerThanTheControlLaneIsAnsweredWholeAndInOrder) {
  server::Config config;
  config.connection.send.max_control_frames = 2;
  RunningServer server(config);
  TestClient client(server.port());
  constexpr int kRequests = 300;
  std::string pipeline = pipelined_posts(kRequests);
  pipeline += "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  client.send(pipeline);
  for (int i = 1; i <= kRequests; ++i) {
    const HttpReply reply = read_reply(client);
    ASSERT_EQ(reply.status, 200) << i;
    ASSERT_NE(reply.body.find(":" + std::to_string(i) + "\""), std::string::npos) << reply.body;
  }
  EXPECT_EQ(read_reply(client).body, "ok\n");
  EXPECT_FALSE(client.eof());
}

// A client's FIN ends its requests, not its reading: the requests it
// pipelined before the FIN, waiting for room for their replies, are all
// answered, then the connection closes. Before, the FIN closed it with the
// replies to what was queued and nothing for the rest.
TEST(HttpErrors, APipelineEndedByTheClientsFinIsAnsweredWholeThenClosed) {
  server::Config config;
  config.connection.send.max_control_frames = 2;
  RunningServer server(config);
  TestClient client(server.port());
  constexpr int kRequests = 1000;
  std::string pipeline = pipelined_posts(kRequests);
  pipeline += "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  client.send(pipeline);
  client.end_sending();
  ASSERT_TRUE(client.read_until_closed());
  for (int i = 1; i <= kRequests; ++i) {
    const HttpReply reply = read_reply(client, 0ms);
    ASSERT_EQ(reply.status, 200) << i;
    ASSERT_NE(reply.body.find(":" + std::to_string(i) + "\""), std::string::npos) << reply.body;
  }
  EXPECT_EQ(read_reply(client, 0ms).body, "ok\n");
  EXPECT_TRUE(client.buffer().empty()) << client.buffer();
}

// A request the FIN cuts short (its body short of its length, a head with
// no end) is answered 400 saying so, after the whole requests before it;
// blank lines alone are no request and get nothing.
TEST(HttpErrors, ARequestTheFinCutsShortIsTold400AfterTheWholeOnesBeforeIt) {
  RunningServer server;
  for (const std::string cut : {"POST /pub/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nhello",
                                "GET /sse/t HTTP/1.1\r\nHost: 127.0.0.1\r\n"}) {
    TestClient client(server.port());
    client.send(pipelined_posts(2) + cut);
    client.end_sending();
    ASSERT_TRUE(client.read_until_closed());
    for (int i = 1; i <= 2; ++i) EXPECT_EQ(read_reply(client, 0ms).status, 200) << i;
    const HttpReply told = read_reply(client, 0ms);
    EXPECT_EQ(told.status, 400) << cut;
    EXPECT_NE(told.body.find("the request ended (the client closed its side) before it was whole"), std::string::npos)
        << told.body;
    EXPECT_TRUE(client.buffer().empty()) << client.buffer();
  }
  TestClient blank(server.port());
  blank.send("\r\n");
  blank.end_sending();
  ASSERT_TRUE(blank.read_until_closed());
  EXPECT_TRUE(blank.buffer().empty()) << blank.buffer();
}

// The same with the default lane, to a reader with a small window that
// takes its replies as they come and sends its FIN partway: most of the
// time the server's last flush wrote part of the lane, so it is no longer
// full when the FIN is read, though requests still wait to be parsed.
TEST(HttpErrors, APipelineEndedByTheFinOfASlowReaderIsAnsweredWhole) {
  RunningServer server;
  TestClient client(server.port(), 4096);
  constexpr int kRequests = 10000;
  std::string pipeline = pipelined_posts(kRequests);
  std::thread sender([&] { client.send(pipeline); });
  const auto replies_read = [](const std::string& buffer) {
    std::size_t n = 0;
    for (std::size_t at = buffer.find("HTTP/1.1 "); at != std::string::npos; at = buffer.find("HTTP/1.1 ", at + 1)) ++n;
    return n;
  };
  ASSERT_TRUE(client.read_until([&](const std::string& b) { return replies_read(b) >= kRequests / 4; }, 20s));
  sender.join();
  client.end_sending();
  ASSERT_TRUE(client.read_until_closed(20s));
  int answered = 0;
  for (HttpReply reply; (reply = read_reply(client, 0ms)).status != 0; ++answered) {
    ASSERT_EQ(reply.status, 200) << answered;
    ASSERT_NE(reply.body.find(":" + std::to_string(answered + 1) + "\""), std::string::npos) << reply.body;
  }
  EXPECT_EQ(answered, kRequests);
}

// A client that asks Expect: 100-continue waits for it before it sends its
// body (curl does, for a second): it is sent once the head is read.
TEST(HttpErrors, AnExpectationOfContinueIsAnsweredBeforeTheBody) {
  RunningServer server;
  TestClient client(server.port());
  client.send("POST /pub/p HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  ASSERT_TRUE(client.read_until_contains("\r\n\r\n"));
  EXPECT_EQ(client.buffer(), "HTTP/1.1 100 Continue\r\n\r\n");
  client.buffer().clear();
  client.send("hello");
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 200) << reply.head;
  EXPECT_NE(reply.body.find(R"("id":")"), std::string::npos) << reply.body;
}

// A Content-Length the input buffer could never hold is refused at the
// head, before its client is invited to send the body.
TEST(HttpErrors, ABodyPastTheReceiveBudgetIsRefusedAtItsHeadWithoutAContinue) {
  server::Config config;
  config.connection.receive_budget = 16 << 10;
  RunningServer server(config);
  TestClient client(server.port());
  client.send("POST /pub/p HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n");
  const HttpReply reply = read_reply(client);
  EXPECT_EQ(reply.status, 413) << reply.head;
  EXPECT_NE(reply.body.find("receive.budget_bytes (16384 bytes)"), std::string::npos) << reply.body;
  EXPECT_TRUE(client.read_until_closed());
}

TEST(HttpErrors, Http10ClosesAfterTheResponse) {
  RunningServer server;
  TestClient client(server.port());
  client.send("GET /healthz HTTP/1.0\r\n\r\n");
  EXPECT_EQ(read_reply(client).status, 200);
  EXPECT_TRUE(client.read_until_closed());
}

}  // namespace
}  // namespace sluice::test
