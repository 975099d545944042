#include "broker/commands.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "link_test_kit.hpp"

namespace sluice::broker {
namespace {

using test::resp;

TEST(Commands, PublishCallsTheScriptWithKeyBoundAndFields) {
  std::string out = "left over";
  write_publish(out, "0123", "sluice:", "news", 1000, {"hello\r\nworld", "price", ""});
  EXPECT_EQ(out, resp({"EVALSHA", "0123", "1", "sluice:news", "1000", "hello\r\nworld", "price", ""}));
}

TEST(Commands, ReadNamesEveryStreamThenEveryCursor) {
  std::string out;
  const ReadCursor cursors[] = {{"a", {5, 1}}, {"b.c", {0, 0}}};
  write_read(out, "p:", cursors, 100, 1000);
  EXPECT_EQ(out, resp({"XREAD", "COUNT", "100", "BLOCK", "1000", "STREAMS", "p:a", "p:b.c", "5-1", "0-0"}));
}

TEST(Commands, RangeNewestAndConnectionCommands) {
  std::string out;
  write_range(out, "sluice:", "t", {7, 3}, {7, 9}, 7);
  EXPECT_EQ(out, resp({"XRANGE", "sluice:t", "7-3", "7-9", "COUNT", "7"}));
  write_newest(out, "sluice:", "t");
  EXPECT_EQ(out, resp({"XREVRANGE", "sluice:t", "+", "-", "COUNT", "1"}));
  write_ping(out);
  EXPECT_EQ(out, resp({"PING"}));
  write_client_id(out);
  EXPECT_EQ(out, resp({"CLIENT", "ID"}));
  write_client_unblock(out, 42);
  EXPECT_EQ(out, resp({"CLIENT", "UNBLOCK", "42"}));
  write_script_load(out, "return 1");
  EXPECT_EQ(out, resp({"SCRIPT", "LOAD", "return 1"}));
}

// Once the buffer has grown, writing a command of the same size again
// reuses it.
TEST(Commands, ReusesTheBuffer) {
  std::string out;
  write_publish(out, "0123", "sluice:", "news", 1000, {"x", "", ""});
  const char* data = out.data();
  write_publish(out, "0123", "sluice:", "news", 1000, {"y", "", ""});
  EXPECT_EQ(out.data(), data);
}

}  // namespace
}  // namespace sluice::broker
