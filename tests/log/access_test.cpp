#include "log/access.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "log_pipe.hpp"

namespace sluice::log {
namespace {

AccessRecord a_request() {
  return {.method = "GET",
          .target = "/sse/news?token=SECRET-TOKEN&lastEventId=abc:3",
          .status = 200,
          .transport = "sse",
          .peer = "127.0.0.1:51522",
          .connection = 7,
          .user_agent = "curl/7.88.1",
          .body_bytes = 0,
          .duration_us = 41};
}

TEST(LogAccess, OneLinePerRequestWithTheTargetRedacted) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.format = Format::json, .access = true}, out);
  log_access(logger, a_request());
  const std::string text = pipe.take();
  EXPECT_EQ(text.find("SECRET-TOKEN"), std::string::npos) << text;
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["msg"], "access");
  EXPECT_EQ(json["method"], "GET");
  EXPECT_EQ(json["target"], "/sse/news?token=[redacted]&lastEventId=abc:3");
  EXPECT_EQ(json["status"], 200);
  EXPECT_EQ(json["transport"], "sse");
  EXPECT_EQ(json["peer"], "127.0.0.1:51522");
  EXPECT_EQ(json["conn"], 7);
  EXPECT_EQ(json["user_agent"], "curl/7.88.1");
  EXPECT_EQ(json["duration_us"], 41);
  EXPECT_FALSE(json.contains("stream")) << text;  // HTTP/1.1: no stream to name
}

TEST(LogAccess, AnHttp2RequestNamesItsStream) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.format = Format::json, .access = true}, out);
  AccessRecord record = a_request();
  record.stream = 5;
  log_access(logger, record);
  const auto json = nlohmann::json::parse(pipe.take());
  EXPECT_EQ(json["conn"], 7);
  EXPECT_EQ(json["stream"], 5);
}

TEST(LogAccess, NothingWhenTheAccessLogIsOff) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({}, out);
  log_access(logger, a_request());
  EXPECT_EQ(pipe.take(), "");
}

TEST(LogAccess, NothingBelowInfo) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.level = Level::warn, .access = true}, out);
  log_access(logger, a_request());
  EXPECT_EQ(pipe.take(), "");
}

}  // namespace
}  // namespace sluice::log
