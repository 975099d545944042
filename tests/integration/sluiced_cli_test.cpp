// The sluiced binary as a user runs it: bad settings are refused with one
// line naming the key, and a good start serves curl until SIGTERM.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "child_process.hpp"
#include "scratch_file.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

struct BadStart {
  std::vector<std::string> args;
  std::string must_say;
};

// Named by this process: the release and sanitizer test trees may run at
// once on one machine, and must not read each other's half-written files.
int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(SluicedCli, HelpNamesWhatEachFlagTakes) {
  ChildProcess sluiced({env_path("SLUICED"), "--help"});
  sluiced.read_to_end(10s);
  EXPECT_EQ(sluiced.wait(5s), 0);
  for (const char* shown : {"--listen HOST:PORT ", "--threads N ", "--broker URL ", "--config FILE ", "--set KEY=VALUE "}) {
    EXPECT_NE(sluiced.output().find(shown), std::string::npos) << shown << "\n" << sluiced.output();
  }
}

// A script's defaults may be followed by the operator's: of a key given by
// --set twice, the later counts.
TEST(SluicedCli, OfAKeySetTwiceTheLaterCounts) {
  SluicedProcess sluiced({"threads=1", "threads=2"});
  ASSERT_NE(sluiced.port(), 0) << sluiced.output();
  EXPECT_NE(sluiced.output().find("sluiced (2 loops) listening on"), std::string::npos) << sluiced.output();
  EXPECT_EQ(sluiced.stop(), 0);
}

TEST(SluicedCli, BadSettingsExitWithOneLineNamingTheKey) {
  const std::vector<BadStart> cases = {
      {{"--set", "sse.heartbeat_ms=5"}, "'sse.heartbeat_ms' must be an integer between 100 and 3600000"},
      {{"--set", "max_connections=lots"}, "'max_connections' must be an integer between 1 and 1000000"},
      {{"--set", "http.max_headers=0"}, "'http.max_headers'"},
      {{"--set", "no.such.key=1"}, "unknown config key 'no.such.key'"},
      {{"--set", "heartbeat"}, "--set wants KEY=VALUE"},
      {{"--threads", "1", "--set", "threads=2"}, "--threads and --set threads= both set 'threads': give one"},
      {{"--set", "broker.url=redis://127.0.0.1:1", "--broker", "redis://127.0.0.1:2"},
       "--broker and --set broker.url= both set 'broker.url': give one"},
      {{"--listen", "127.0.0.1:99999"}, "'listen' must be HOST:PORT"},
      {{"--listen", "locahost:8080"}, "'listen' must be HOST:PORT, HOST an IPv4 address, [IPv6] or localhost"},
      {{"--set", "pool.block_size=64", "--set", "pool.reserve=4"}, "'pool.reserve' must be at least 32"},
      {{"--set", "send.budget_bytes=100"}, "'send.budget_bytes' must be at least pool.block_size"},
      {{"--set", "pool.block_count=1000", "--set", "pool.reserve=10"}, "'pool.block_count' must be at least"},
      {{"--bogus-flag"}, "--bogus-flag"},
      {{"--broker", "http://127.0.0.1:6379"}, "config key broker.url 'http://127.0.0.1:6379'"},
      {{"--set", "broker.url=redis://127.0.0.1:99999"}, "config key broker.url 'redis://127.0.0.1:99999'"},
      {{"--set", "broker.read_count=0"}, "'broker.read_count' must be an integer between 1 and 10000"},
      {{"--set", "broker.prefix="}, "'broker.prefix' must be 1 to 64 bytes"},
      {{"--set", "broker.placement_timeout_ms=9"},
       "'broker.placement_timeout_ms' must be an integer between 10 and 60000"},
      {{"--broker", "redis://127.0.0.1:6379", "--set", "broker.max_pending_bytes=4096"},
       "'broker.max_pending_bytes' must be at least"},
      {{"--set", "ws.max_message=2097152"},
       "'limits.connection_bytes' (2097152) must be at least 4161536 for ws.max_message = 2097152"},
      {{"--set", "http.max_body=4194304"},
       "'limits.connection_bytes' (2097152) must be at least 5218368 for http.max_body = 4194304"},
  };
  for (const BadStart& c : cases) {
    std::vector<std::string> argv = {env_path("SLUICED")};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    ChildProcess sluiced(argv);
    EXPECT_EQ(sluiced.wait(10s), 2) << c.must_say;
    sluiced.read_to_end(5s);
    EXPECT_NE(sluiced.output().find(c.must_say), std::string::npos) << sluiced.output();
    EXPECT_EQ(count_lines(sluiced.output()), 1) << sluiced.output();
  }
}

// With several loops each takes the port with SO_REUSEPORT, which another
// process of the same user could join: a second sluiced on a port in use
// must fail to start, as it does with one loop. Before, it started, and the
// two shared the clients, each with its own ids.
TEST(SluicedCli, ASecondServerOnAPortInUseDoesNotStartWhateverItsLoops) {
  SluicedProcess first({"threads=2"});
  ASSERT_NE(first.port(), 0) << first.output();
  SluicedProcess second({"threads=2"}, "127.0.0.1:" + std::to_string(first.port()));
  EXPECT_EQ(second.port(), 0);
  // 1, not a bad setting's 2: a service manager tries again.
  EXPECT_EQ(second.exit_code(), 1);
  EXPECT_NE(second.output().find("Address already in use"), std::string::npos) << second.output();
  EXPECT_EQ(first.stop(), 0) << first.output();
}

// A pool the machine cannot give (16 TiB, not faulted in: the kernel's
// default overcommit check refuses a mapping past its memory and swap)
// stops the start with a line naming its keys; it used to say "listening"
// and drop every connection unanswered.
TEST(SluicedCli, APoolTheMachineCannotGiveStopsTheStartNamingItsKeys) {
  ChildProcess sluiced({env_path("SLUICED"), "--listen", "127.0.0.1:0", "--set", "pool.block_count=16777216",
                        "--set", "pool.block_size=1048576", "--set", "pool.prefault=0"});
  EXPECT_EQ(sluiced.wait(10s), 2);
  sluiced.read_to_end(5s);
  EXPECT_NE(sluiced.output().find("config keys 'pool.block_count' and 'pool.block_size': the pool's 16777"),
            std::string::npos)
      << sluiced.output();
  EXPECT_EQ(sluiced.output().find("listening"), std::string::npos) << sluiced.output();
}

// A token key with no token check to read it: the operator meant jwt.
TEST(SluicedCli, ATokenKeyWithoutATokenCheckStopsTheStartNamingIt) {
  for (const char* mode : {"none", "open"}) {
    ChildProcess sluiced({env_path("SLUICED"), "--listen", "127.0.0.1:0", "--set", std::string("auth.mode=") + mode,
                          "--set", "auth.jwt_secret=0123456789abcdef0123456789abcdef"});
    EXPECT_EQ(sluiced.wait(10s), 2) << mode;
    sluiced.read_to_end(5s);
    EXPECT_NE(sluiced.output().find(std::string("config key 'auth.jwt_secret' is set but auth.mode is ") + mode),
              std::string::npos)
        << sluiced.output();
  }
}

// A port nobody listens on: bound, named, and let go.
std::uint16_t unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// A node whose Redis cannot be reached refuses every publish and reads no
// topic: its health check says so, and names the Redis, so that a load
// balancer sends clients elsewhere.
TEST(SluicedCli, TheHealthCheckFailsWhileRedisCannotBeReached) {
  const std::string redis = "127.0.0.1:" + std::to_string(unused_port());
  SluicedProcess node({"broker.url=redis://" + redis});
  ASSERT_NE(node.port(), 0) << node.output();
  const HttpReply health = http_request(node.port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.body, "Redis at " + redis + " is not reachable from this node (broker.url)\n");
  EXPECT_TRUE(node.wait_for_output("redis=" + redis + " error=\"Connection refused\" loop=0 key=broker.url"))
      << node.output();
  EXPECT_EQ(node.stop(), 0) << node.output();
}

TEST(SluicedCli, BadValueInConfigFileNamesTheKey) {
  const ScratchFile file("sluice_bad.toml");
  const std::string& path = file.path();
  std::ofstream(path) << "max_connections = 100\n[timeouts]\nhandshake_ms = 5\n";
  ChildProcess sluiced({env_path("SLUICED"), "--config", path});
  EXPECT_EQ(sluiced.wait(10s), 2);
  sluiced.read_to_end(5s);
  EXPECT_NE(sluiced.output().find("'timeouts.handshake_ms' must be an integer between 100 and"), std::string::npos)
      << sluiced.output();
}

TEST(SluicedCli, MalformedConfigFileNamesTheLine) {
  const ScratchFile file("sluice_broken.toml");
  const std::string& path = file.path();
  std::ofstream(path) << "max_connections = 100\n[pool\n";
  ChildProcess sluiced({env_path("SLUICED"), "--config", path});
  EXPECT_EQ(sluiced.wait(10s), 2);
  sluiced.read_to_end(5s);
  EXPECT_NE(sluiced.output().find(path + ":2:"), std::string::npos) << sluiced.output();
}

TEST(SluicedCli, CurlSubscribesAndPublishesThenSigtermStopsCleanly) {
  const ScratchFile file("sluice_good.toml");
  const std::string& path = file.path();
  std::ofstream(path) << "[sse]\nheartbeat_ms = 15000\n";
  ChildProcess sluiced({env_path("SLUICED"), "--config", path, "--listen", "127.0.0.1:0"});
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  const std::uint16_t port = listening_port(sluiced.output());
  const std::string base = "http://127.0.0.1:" + std::to_string(port);

  ChildProcess curl_sub({"curl", "-sN", base + "/sse/news"});
  ASSERT_TRUE(curl_sub.read_until_contains("retry:", 10s));

  for (int i = 0; i < 1000; i += 100) {
    // One curl run per hundred POSTs, on one kept-alive connection.
    std::vector<std::string> argv = {"curl", "-s"};
    for (int j = i; j < i + 100; ++j) {
      if (j > i) argv.push_back("--next");
      argv.insert(argv.end(), {"-X", "POST", "--data-binary", "n" + std::to_string(j), base + "/pub/news"});
    }
    ChildProcess curl_pub(argv);
    ASSERT_EQ(curl_pub.wait(30s), 0);
  }
  ASSERT_TRUE(curl_sub.read_until_contains("data: n999\n", 30s));
  const std::string& stream = curl_sub.output();
  std::size_t at = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string expected = ":" + std::to_string(i + 1) + "\ndata: n" + std::to_string(i) + "\n\n";
    const std::size_t found = stream.find(expected, at);
    ASSERT_NE(found, std::string::npos) << "event " << i;
    at = found + expected.size();
  }

  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
  EXPECT_EQ(curl_sub.wait(10s), 0);  // the stream ended cleanly, not with an error
  sluiced.read_to_end(5s);
  EXPECT_NE(sluiced.output().find("sluiced stopped"), std::string::npos);
}

// What a reload did is said on standard error, with the log and a start's
// failure: an operator who keeps only that stream sees a failed reload.
// Standard output (here a file) has the banner only.
TEST(SluicedCli, AReloadIsReportedOnStandardError) {
  const ScratchFile file("sluice_reload_stderr.toml");
  const ScratchFile out("sluice_reload_stdout.txt");
  std::ofstream(file.path()) << "max_connections = 500\n";
  ChildProcess sluiced({"/bin/sh", "-c", "exec \"$0\" --config \"$1\" --listen 127.0.0.1:0 --set threads=1 >\"$2\"",
                        env_path("SLUICED"), file.path(), out.path()});
  const auto banner = [&] {
    std::ifstream in(out.path());
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_TRUE(wait_until([&] { return banner().find("sluiced (1 loop) listening on") != std::string::npos; }))
      << banner() << sluiced.output();
  std::ofstream(file.path()) << "max_connections = 0\n";
  sluiced.signal(SIGHUP);
  EXPECT_TRUE(sluiced.read_until_contains("reload failed, kept the old value: config key 'max_connections'", 10s))
      << sluiced.output();
  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
  EXPECT_EQ(banner().find("reload"), std::string::npos) << banner();
}

// SIGHUP after an edit: the keys that changed are named as read at start
// only (none is applied until a restart), the stream open before it goes
// on, and a file that no longer reads is a failed reload that changes
// nothing.
TEST(SluicedCli, AReloadNamesTheSettingsThatNeedARestartAndDropsNothing) {
  const ScratchFile file("sluice_reload.toml");
  const std::string& path = file.path();
  std::ofstream(path) << "max_connections = 500\n[topics]\nmax = 100\n";
  ChildProcess sluiced({env_path("SLUICED"), "--config", path, "--listen", "127.0.0.1:0", "--set", "threads=1"});
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  const std::uint16_t port = listening_port(sluiced.output());
  auto subscriber = std::make_unique<SseSubscriber>(port, "/sse/news");
  SseSubscriber& stream = *subscriber;
  ASSERT_TRUE(stream.opened());

  sluiced.signal(SIGHUP);
  ASSERT_TRUE(sluiced.read_until_contains("sluiced: reloaded\n", 10s)) << sluiced.output();
  EXPECT_EQ(sluiced.output().find("reload: "), std::string::npos) << "nothing changed yet";

  std::ofstream(path) << "max_connections = 500\n[topics]\nmax = 50\n[policy]\ndefault = \"latest\"\n";
  sluiced.signal(SIGHUP);
  ASSERT_TRUE(sluiced.read_until_contains("needs restart, not applied: topics.max\n", 10s))
      << sluiced.output();
  ASSERT_TRUE(sluiced.read_until_contains("reload: applied: policy.default\n", 10s)) << sluiced.output();

  std::ofstream(path) << "max_connections = 0\n";
  sluiced.signal(SIGHUP);
  ASSERT_TRUE(sluiced.read_until_contains("reload failed, kept the old value: config key 'max_connections'", 10s))
      << sluiced.output();

  ASSERT_EQ(http_request(port, "POST", "/pub/news", "after three reloads").status, 200);
  ASSERT_TRUE(stream.wait_for(1));
  EXPECT_EQ(stream.events()[0].data, "after three reloads");
  subscriber.reset();  // gone before the stop, which would otherwise wait for it to linger out
  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
  std::remove(path.c_str());
}

// sluiced on a config file the test rewrites, --listen on a loopback port
// over whatever the file says, one loop.
std::vector<std::string> with_config(const std::string& path) {
  return {env_path("SLUICED"), "--config", path, "--listen", "127.0.0.1:0", "--set", "threads=1"};
}

// SIGHUP, then the failed reload's line saying `why`, and no "reloaded".
void expect_reload_refused(ChildProcess& sluiced, const std::string& why) {
  sluiced.signal(SIGHUP);
  EXPECT_TRUE(sluiced.read_until_contains("reload failed, kept the old value: " + why, 10s)) << sluiced.output();
  EXPECT_EQ(sluiced.output().find("reloaded"), std::string::npos) << sluiced.output();
}

// A reload checks the settings as a start would: a token key with no token
// check to read it stops a start, and is a failed reload that keeps the
// running values, not a reload said to be applied.
TEST(SluicedCli, AReloadOfSettingsAStartWouldRefuseFailsAndKeepsTheOldValues) {
  const ScratchFile file("sluice_reload_auth.toml");
  std::ofstream(file.path()) << "max_connections = 500\n";
  ChildProcess sluiced(with_config(file.path()));
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  const std::uint16_t port = listening_port(sluiced.output());
  std::ofstream(file.path()) << "max_connections = 500\n[auth]\njwt_secret = \"0123456789abcdef0123456789abcdef\"\n";
  expect_reload_refused(sluiced, "config key 'auth.jwt_secret' is set but auth.mode is none");
  EXPECT_EQ(http_request(port, "POST", "/pub/news", "still open").status, 200);
  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
}

// The reload is held to the rules on what would be in force after it: a
// token key brought in with auth.mode, which needs a restart, would leave
// the running server (mode none) holding a key it never checks.
TEST(SluicedCli, AReloadIsCheckedOnWhatWouldBeInForceAfterIt) {
  const ScratchFile file("sluice_reload_merged.toml");
  const ScratchFile secret("sluice_reload_merged.secret");
  std::ofstream(secret.path()) << "0123456789abcdef0123456789abcdef\n";
  std::ofstream(file.path()) << "max_connections = 500\n";
  ChildProcess sluiced(with_config(file.path()));
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  std::ofstream(file.path()) << "max_connections = 500\n[auth]\nmode = \"jwt\"\njwt_secret_file = \"" << secret.path()
                             << "\"\n";
  expect_reload_refused(sluiced, "config key 'auth.jwt_secret_file' is set but auth.mode is none, which checks no "
                                 "token: set auth.mode=jwt (a reload keeps auth.mode, listen and admin.listen as "
                                 "they run: a change to them takes a restart)");
  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
}

// --listen wins over the file at start, and at every reload too: a file
// naming another address (with no auth, one a start would refuse) does not
// make each reload fail.
TEST(SluicedCli, AReloadKeepsTheListenFlagOverTheFile) {
  const ScratchFile file("sluice_reload_listen.toml");
  std::ofstream(file.path()) << "listen = \"0.0.0.0:0\"\nmax_connections = 500\n";
  ChildProcess sluiced(with_config(file.path()));
  ASSERT_TRUE(sluiced.read_until_contains("\n", 10s)) << sluiced.output();
  ASSERT_NE(sluiced.output().find("listening on 127.0.0.1:"), std::string::npos) << sluiced.output();
  sluiced.signal(SIGHUP);
  EXPECT_TRUE(sluiced.read_until_contains("sluiced: reloaded\n", 10s)) << sluiced.output();
  EXPECT_EQ(sluiced.output().find("reload failed"), std::string::npos) << sluiced.output();
  sluiced.signal(SIGTERM);
  EXPECT_EQ(sluiced.wait(10s), 0);
}

}  // namespace
}  // namespace sluice::test
