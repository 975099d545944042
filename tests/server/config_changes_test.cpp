#include "server/config_changes.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace sluice::server {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ConfigChanges, TheFileIsFlattenedToItsKeysAndTheOverridesFollow) {
  const std::string path = write_file("changes.toml", "threads = 2\n[policy.topics]\n\"prices.*\" = \"latest\"\n");
  SettingList list;
  ASSERT_EQ(read_setting_list(path, {"limits.per_ip_connections=9"}, list), std::nullopt);
  // A table's keys come in name order.
  const SettingList expected{{"policy.topics.prices.*", "latest"}, {"threads", "2"}, {"limits.per_ip_connections", "9"}};
  EXPECT_EQ(list, expected);
  std::remove(path.c_str());
}

TEST(ConfigChanges, AFileThatDoesNotReadIsAnErrorNamingIt) {
  const std::string path = write_file("broken.toml", "threads = 1.5\n");
  SettingList list;
  const auto wrong_type = read_setting_list(path, {}, list);
  ASSERT_TRUE(wrong_type);
  EXPECT_EQ(*wrong_type, "config key 'threads' must be an integer between 0 and 64 (got a floating-point number)");
  std::ofstream(path) << "[pool\n";
  const auto broken = read_setting_list(path, {}, list);
  ASSERT_TRUE(broken);
  EXPECT_NE(broken->find(path + ":1:"), std::string::npos) << *broken;
  EXPECT_TRUE(read_setting_list("", {"no-equals-sign"}, list));
  std::remove(path.c_str());
}

TEST(ConfigChanges, AQuotedNumberIsRefusedNamingTheKeyAndOnOffKeysTakeTrueAndFalse) {
  const std::string path = write_file("typed.toml", "[http]\nmax_body = \"100\"\n");
  SettingList list;
  const auto quoted = read_setting_list(path, {}, list);
  ASSERT_TRUE(quoted);
  EXPECT_EQ(quoted->rfind("config key 'http.max_body' must be an integer between ", 0), 0u) << *quoted;
  EXPECT_NE(quoted->find("written without quotes (got the string \"100\")"), std::string::npos) << *quoted;
  // A string stays a string where the key is one.
  std::ofstream(path) << "listen = \"127.0.0.1:0\"\n[h2]\nenabled = false\n[ws]\ndeflate = true\n";
  ASSERT_EQ(read_setting_list(path, {}, list), std::nullopt);
  const SettingList expected{{"h2.enabled", "0"}, {"listen", "127.0.0.1:0"}, {"ws.deflate", "1"}};
  EXPECT_EQ(list, expected);
  // true is no number for a key with a wider range.
  std::ofstream(path) << "threads = true\n";
  const auto flag = read_setting_list(path, {}, list);
  ASSERT_TRUE(flag);
  EXPECT_EQ(*flag, "config key 'threads' must be an integer between 0 and 64 (got true or false)");
  // Nor is a list, even of one quoted number.
  std::ofstream(path) << "threads = [\"1\"]\n";
  const auto listed = read_setting_list(path, {}, list);
  ASSERT_TRUE(listed);
  EXPECT_EQ(*listed, "config key 'threads' must be an integer between 0 and 64 (got a list)");
  // A word key written as a number has no range to tell.
  std::ofstream(path) << "listen = 1.5\n";
  const auto word = read_setting_list(path, {}, list);
  ASSERT_TRUE(word);
  EXPECT_EQ(*word, "config key 'listen' has a value of the wrong type (a floating-point number)");
  std::remove(path.c_str());
}

// A list key may be written as TOML writes a list; its items become the
// comma list --set takes.
TEST(ConfigChanges, AListOfStringsIsTheCommaList) {
  const std::string path =
      write_file("lists.toml", "[ws]\nallowed_origins = [\"https://a.example\", \"https://b.example\"]\n");
  SettingList list;
  ASSERT_EQ(read_setting_list(path, {}, list), std::nullopt);
  const SettingList expected{{"ws.allowed_origins", "https://a.example,https://b.example"}};
  EXPECT_EQ(list, expected);
  std::ofstream(path) << "threads = [1, 2]\n";
  const auto numbers = read_setting_list(path, {}, list);
  ASSERT_TRUE(numbers);
  EXPECT_EQ(*numbers, "config key 'threads' must be an integer between 0 and 64 (got a list)");
  std::ofstream(path) << "[ws]\nallowed_origins = [1]\n";
  const auto number_items = read_setting_list(path, {}, list);
  ASSERT_TRUE(number_items);
  EXPECT_EQ(*number_items, "config key 'ws.allowed_origins': a list's items must be strings");
  std::ofstream(path) << "[ws]\nsubprotocols = [\"a,b\"]\n";
  const auto comma = read_setting_list(path, {}, list);
  ASSERT_TRUE(comma);
  EXPECT_EQ(*comma, "config key 'ws.subprotocols': a list item may not hold a comma (got \"a,b\")");
  std::remove(path.c_str());
}

TEST(ConfigChanges, ChangedKeysAreTheLastValuesThatDifferEitherWay) {
  const SettingList before{{"threads", "2"}, {"max_connections", "10"}, {"max_connections", "20"}, {"gone", "1"}};
  const SettingList after{{"threads", "2"}, {"max_connections", "20"}, {"added", "x"}};
  EXPECT_EQ(changed_keys(before, after), (std::vector<std::string>{"added", "gone"}));
  EXPECT_TRUE(changed_keys(after, after).empty());
  // A --set after the file overrides it: only the last value counts.
  const SettingList overridden{{"threads", "4"}, {"max_connections", "20"}, {"added", "x"}, {"threads", "2"}};
  EXPECT_TRUE(changed_keys(after, overridden).empty());
}

// A key written out at its default changes nothing: a reload does not ask
// for a restart for it.
TEST(ConfigChanges, AValueThatMeansTheSameIsNoChange) {
  const SettingList none;
  const SettingList at_default{{"history.max_events", "1000"}};
  EXPECT_TRUE(changed_keys(none, at_default).empty());
  EXPECT_TRUE(changed_keys(at_default, none).empty());
  EXPECT_EQ(changed_keys(none, SettingList{{"history.max_events", "999"}}),
            (std::vector<std::string>{"history.max_events"}));
  EXPECT_EQ(changed_keys(SettingList{{"ws.client_publish", "1"}}, SettingList{{"ws.client_publish", "0"}}),
            (std::vector<std::string>{"ws.client_publish"}));
}

}  // namespace
}  // namespace sluice::server
