// A reload of a running sluiced (SIGHUP): the settings that may change
// while serving take effect for what starts after it, on every loop, and
// those that need a restart are named and keep their running values.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "child_process.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + std::to_string(::getpid()) + "_" + name;
}

TEST(SluicedReload, LiveSettingsBindNewWorkOnEveryLoopAndRestartOnlyKeysAreNamedNotApplied) {
  const std::string path = temp_path("sluice_live_reload.toml");
  std::ofstream(path) << "[http]\nmax_body = 4096\n[sse]\nheartbeat_ms = 3600000\n";
  ChildProcess sluiced({env_path("SLUICED"), "--config", path, "--listen", "127.0.0.1:0", "--set", "threads=2", "--set",
                       "pool.prefault=0"});
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  const std::uint16_t port = listening_port(sluiced.output());

  // A stream opened before the reload: it must stay open, and the loop's
  // heartbeat (hourly at start) must come at the new period.
  auto watcher_client = std::make_unique<TestClient>(port);
  TestClient& watcher = *watcher_client;
  watcher.send("GET /sse/news HTTP/1.1\r\nHost: localhost\r\n\r\n");
  ASSERT_TRUE(watcher.read_until_contains("retry:"));
  const std::string body(2000, 'b');
  ASSERT_EQ(http_request(port, "POST", "/pub/news", body).status, 200);
  const std::string long_topic = "/pub/" + std::string(150, 't');  // past topics.max_name (128)
  ASSERT_EQ(http_request(port, "POST", long_topic, "x").status, 400);

  std::ofstream(path) << "[http]\nmax_body = 1000\n[sse]\nheartbeat_ms = 100\n[topics]\nmax_name = 200\n";
  sluiced.signal(SIGHUP);
  ASSERT_TRUE(sluiced.read_until_contains("reload: needs restart, not applied: topics.max_name\n", 10s))
      << sluiced.output();
  ASSERT_TRUE(sluiced.read_until_contains("reload: applied: http.max_body sse.heartbeat_ms\n", 10s))
      << sluiced.output();
  // Reported once both loops have taken the new values.
  ASSERT_TRUE(sluiced.read_until_contains("sluiced: reloaded\n", 10s)) << sluiced.output();

  // Each request on a new connection, which either loop may take.
  for (int i = 0; i < 6; ++i) {
    const HttpReply reply = http_request(port, "POST", "/pub/news", body);
    EXPECT_EQ(reply.status, 413) << i;
  }
  EXPECT_EQ(http_request(port, "POST", "/pub/news", std::string(900, 's')).status, 200);
  EXPECT_EQ(http_request(port, "POST", long_topic, "x").status, 400) << "topics.max_name waits for a restart";
  ASSERT_TRUE(watcher.read_until_contains("\n:\n\n", 10s)) << "no heartbeat at the new period";
  EXPECT_FALSE(watcher.eof());
  watcher_client.reset();  // gone before the stop, which would otherwise wait for it to linger out

  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
  std::remove(path.c_str());
}

// A path that is no longer a regular file (a directory put in its place,
// a device) would read as an empty file and set every key back to its
// default: the reload fails instead, saying why, and the values stay.
TEST(SluicedReload, AConfigPathThatIsNoLongerAFileKeepsTheRunningValues) {
  const std::string path = temp_path("sluice_reload_dir.toml");
  std::ofstream(path) << "[http]\nmax_body = 4096\n";
  ChildProcess sluiced({env_path("SLUICED"), "--config", path, "--listen", "127.0.0.1:0", "--set", "pool.prefault=0"});
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  const std::uint16_t port = listening_port(sluiced.output());
  ASSERT_EQ(http_request(port, "POST", "/pub/news", std::string(5000, 'b')).status, 413);

  std::remove(path.c_str());
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  sluiced.signal(SIGHUP);
  ASSERT_TRUE(sluiced.read_until_contains("config file " + path + " is not a regular file", 10s)) << sluiced.output();
  EXPECT_EQ(http_request(port, "POST", "/pub/news", std::string(5000, 'b')).status, 413) << "http.max_body kept";
  EXPECT_EQ(sluiced.output().find("sluiced: reloaded"), std::string::npos) << sluiced.output();

  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
  ::rmdir(path.c_str());
}

}  // namespace
}  // namespace sluice::test
