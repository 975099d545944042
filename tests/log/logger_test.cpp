#include "log/logger.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "alloc_counter.hpp"
#include "log_pipe.hpp"

namespace sluice::log {
namespace {

TEST(LogLogger, WritesLevelTimeMessageAndFields) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({}, out);
  logger.info("listening").field("address", "127.0.0.1:8080").field("loops", 2);
  const std::string text = pipe.take();
  EXPECT_TRUE(std::regex_match(text, std::regex("level=info ts=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z "
                                                "msg=listening address=127.0.0.1:8080 loops=2\n")))
      << text;
}

TEST(LogLogger, JsonLinesParse) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.format = Format::json}, out);
  logger.warn("slow consumer cut off").field("peer", "10.0.0.1:4000").field("queued_bytes", std::uint64_t{1 << 20});
  const auto json = nlohmann::json::parse(pipe.take());
  EXPECT_EQ(json["level"], "warn");
  EXPECT_EQ(json["msg"], "slow consumer cut off");
  EXPECT_EQ(json["queued_bytes"], 1 << 20);
  EXPECT_EQ(json["ts"].get<std::string>().size(), 24u);
}

TEST(LogLogger, BelowTheLevelNothingIsWritten) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.level = Level::warn}, out);
  logger.debug("d");
  logger.info("i");
  EXPECT_EQ(pipe.take(), "");
  logger.error("e");
  EXPECT_NE(pipe.take().find("level=error"), std::string::npos);
  logger.set_level(Level::debug);
  logger.debug("now shown");
  EXPECT_NE(pipe.take().find("msg=\"now shown\""), std::string::npos);
}

TEST(LogLogger, ALineNeverExceedsMaxLine) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.max_line = 256}, out);
  logger.info("long").field("v", std::string(1000, 'v'));
  const std::string text = pipe.take();
  EXPECT_LE(text.size(), 256u);
  EXPECT_NE(text.find("truncated=true\n"), std::string::npos);
}

TEST(LogLogger, LoggingAllocatesNothing) {
  test::LogPipe pipe;
  Output out(pipe.write_end());
  Logger logger({.format = Format::json}, out);
  std::uint64_t during = 0;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t before = sluice::test::allocations();
    logger.info("event").field("i", i).field("topic", std::string_view("news"));
    logger.debug("filtered").field("i", i);
    during += sluice::test::allocations() - before;
    EXPECT_NE(pipe.take().find("\"i\":" + std::to_string(i)), std::string::npos);
  }
  EXPECT_EQ(during, 0u);
}

TEST(LogLogger, LevelAndFormatNames) {
  EXPECT_EQ(parse_level("debug"), Level::debug);
  EXPECT_EQ(parse_level("warn"), Level::warn);
  EXPECT_EQ(parse_level("warning"), std::nullopt);
  EXPECT_EQ(level_name(Level::error), "error");
  EXPECT_EQ(parse_format("json"), Format::json);
  EXPECT_EQ(parse_format("logfmt"), Format::logfmt);
  EXPECT_EQ(parse_format("text"), std::nullopt);
}

TEST(LogLogger, MaxLineOutOfRangeIsRefusedNamingTheKey) {
  EXPECT_EQ(validate(LogConfig{}), std::nullopt);
  EXPECT_EQ(validate(LogConfig{.max_line = 100}), "config key 'log.max_line' must be in [256..4095] (got 100)");
  EXPECT_NE(validate(LogConfig{.max_line = 4096}), std::nullopt);
}

}  // namespace
}  // namespace sluice::log
