// sluiced's access log (log.access, log.format): one line per request with
// its status, and never a token it was sent or a body it was given.
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "child_process.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

std::string run_and_log(const std::vector<std::string>& settings, const std::string& expect_in_log) {
  std::vector<std::string> argv = {env_path("SLUICED"), "--listen", "127.0.0.1:0", "--threads", "1"};
  for (const std::string& s : settings) argv.insert(argv.end(), {"--set", s});
  ChildProcess sluiced(argv);
  EXPECT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  const std::uint16_t port = listening_port(sluiced.output());

  {
    SseSubscriber subscriber(port, "/sse/news?token=TOKEN-SSE-51f3&policy=fifo");
    EXPECT_TRUE(subscriber.opened());
    TestClient publisher(port);
    publisher.send(
        "POST /pub/news?access_token=TOKEN-PUB-9ac2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer TOKEN-HDR-77de\r\n"
        "Cookie: session=TOKEN-COOKIE-0b1e\r\nContent-Length: 16\r\n\r\nBODY-SECRET-4411");
    EXPECT_EQ(read_reply(publisher).status, 200);
    EXPECT_TRUE(subscriber.wait_for(1));
    EXPECT_EQ(http_request(port, "GET", "/nowhere").status, 404);
  }
  // The lines are written as the requests are answered: wait for the last.
  EXPECT_TRUE(sluiced.read_until_contains(expect_in_log, 10s)) << sluiced.output();
  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
  sluiced.read_to_end(5s);
  return sluiced.output();
}

TEST(SluicedLog, AccessLinesCarryTheStatusAndNeverATokenOrABody) {
  const std::string log = run_and_log({"log.access=1"}, "status=404");
  EXPECT_NE(log.find("msg=access method=GET target=\"/sse/news?token=[redacted]&policy=fifo\" status=200"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("msg=access method=POST target=\"/pub/news?access_token=[redacted]\" status=200"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("body_bytes=16"), std::string::npos) << log;
  for (const char* secret : {"TOKEN-SSE-51f3", "TOKEN-PUB-9ac2", "TOKEN-HDR-77de", "TOKEN-COOKIE-0b1e",
                             "BODY-SECRET-4411"}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret << " in\n" << log;
  }
}

TEST(SluicedLog, JsonFormatAndOffByDefault) {
  const std::string json_lines = run_and_log({"log.access=1", "log.format=json"}, "\"status\":404");
  EXPECT_NE(json_lines.find("\"msg\":\"access\""), std::string::npos) << json_lines;
  EXPECT_EQ(json_lines.find("TOKEN-"), std::string::npos) << json_lines;

  const std::string quiet = run_and_log({}, "sluiced");
  EXPECT_EQ(quiet.find("msg=access"), std::string::npos) << quiet;
}

TEST(SluicedLog, BadLogSettingsNameTheKey) {
  ChildProcess sluiced({env_path("SLUICED"), "--set", "log.level=loud"});
  EXPECT_EQ(sluiced.wait(10s), 2);
  sluiced.read_to_end(5s);
  EXPECT_NE(sluiced.output().find("'log.level' must be one of debug, info, warn, error"), std::string::npos)
      << sluiced.output();
}

}  // namespace
}  // namespace sluice::test
