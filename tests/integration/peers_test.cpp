// Real clients against the real sluiced binary: Node's `ws` and
// `eventsource` packages, Debian's python3-websockets and Chromium's
// EventSource. Each peer script in tests/peers (see docs/PEERS.md) judges
// what it received and prints a one-line summary; this file starts sluiced
// for it, runs it with a deadline, and asserts on its exit code and summary.
// The echo scripts run against sluiced_echo: the same program with the
// tests' GET /ws-echo added (tests/support/sluiced_echo_main.cpp).
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include "child_process.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

// Found from this file, so the tests need no environment beyond SLUICED.
const std::filesystem::path kPeers = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests" / "peers";

// A small send budget and a short retry make a pipelined burst cut an SSE
// stream off and the client come back soon (tests/peers/lib/resume.mjs).
// One loop, so a burst's events reach the subscriber's queue in one drain:
// with two, the subscriber's loop could take them a few at a time as they
// are published, the socket could take each few, and the stream would never
// be cut (it happened once in CI under load).
const std::vector<std::string> kResumeSettings = {"send.budget_bytes=4096", "policy.slow_retry_ms=50", "threads=1"};

// Which program serves the peer.
enum class Program { sluiced, sluiced_echo };

class Sluiced {
 public:
  Sluiced(Program program, const std::vector<std::string>& settings) : process_(argv(program, settings)) {}

  // The port from "sluiced listening on 127.0.0.1:PORT", or "" if it did not start.
  std::string port() {
    if (!process_.read_until_contains("\n", 10s)) return "";
    const std::string& banner = process_.output();
    const std::size_t colon = banner.rfind(':', banner.find('\n'));
    return banner.substr(colon + 1, banner.find('\n') - colon - 1);
  }

  // Stops it as an operator would; 0 when it drained and exited cleanly
  // (under ASan, also when it leaked nothing).
  int stop() {
    process_.signal(SIGTERM);
    return process_.wait(10s);
  }

  std::string output() {
    process_.read_to_end(1s);
    return process_.output();
  }

 private:
  static std::vector<std::string> argv(Program program, const std::vector<std::string>& settings) {
    const std::string binary = program == Program::sluiced ? env_path("SLUICED") : std::string(SLUICED_ECHO_PATH);
    std::vector<std::string> args = {binary, "--listen", "127.0.0.1:0"};
    for (const std::string& s : settings) args.insert(args.end(), {"--set", s});
    return args;
  }

  ChildProcess process_;
};

struct PeerRun {
  int exit_code;
  std::string output;
};

// Each script ends itself by a shorter deadline of its own; 90 s is a backstop.
PeerRun run_peer(const std::string& interpreter, const std::string& script, const std::string& port) {
  ChildProcess peer({interpreter, (kPeers / script).string(), port});
  peer.read_to_end(90s);
  const int code = peer.wait(5s);
  return {code, peer.output()};
}

// Runs `script` against a sluiced started with `settings` and expects it to
// succeed with `summary` in its output.
void expect_peer_passes(const std::string& interpreter, const std::string& script,
                        const std::vector<std::string>& settings, const std::string& summary,
                        Program program = Program::sluiced) {
  ASSERT_TRUE(std::filesystem::exists(kPeers / "node_modules" / "ws"))
      << "the peers' npm packages are missing: run make test (npm ci --prefix tests/peers)";
  Sluiced sluiced(program, settings);
  const std::string port = sluiced.port();
  ASSERT_FALSE(port.empty()) << sluiced.output();
  const PeerRun run = run_peer(interpreter, script, port);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find(summary), std::string::npos) << run.output;
  EXPECT_EQ(sluiced.stop(), 0) << sluiced.output();
}

const std::string kNode = "node";
const std::string kPython = "/usr/bin/python3";  // the one Debian's python3-websockets is installed for

TEST(Peers, NodeWsGetsAThousandEventsInOrderOverTheJsonProtocol) {
  expect_peer_passes(kNode, "ws_events.mjs", {}, "ws_events: 1000 events in order, close code 1000");
}

TEST(Peers, NodeWsGetsFragmentedCompressedMessagesEchoedIntact) {
  expect_peer_passes(kNode, "ws_echo.mjs", {}, "ws_echo: 4 fragmented/compressed messages echoed intact",
                     Program::sluiced_echo);
}

TEST(Peers, PythonWebsocketsGetsAThousandEventsInOrderFromATopic) {
  expect_peer_passes(kPython, "ws_events.py", {}, "ws_events.py: 1000 events in order, close code 1000");
}

TEST(Peers, PythonWebsocketsGetsFragmentedCompressedMessagesEchoedIntact) {
  expect_peer_passes(kPython, "ws_echo.py", {}, "ws_echo.py: 4 fragmented/compressed messages echoed intact",
                     Program::sluiced_echo);
}

TEST(Peers, PythonWebsocketsTakesTheLatestWindowsPaddingAndGetsTheNewest) {
  expect_peer_passes(kPython, "ws_latest_paused.py", {"policy.default=latest"},
                     "ws_latest_paused.py: paused, padded, then the newest; close code 1000");
}

TEST(Peers, NodeEventSourceResumesExactlyOnceAfterSlowConsumerCutOffs) {
  expect_peer_passes(kNode, "eventsource_resume.mjs", kResumeSettings,
                     "eventsource_resume: 60 events exactly once, in order");
}

TEST(Peers, ChromiumEventSourceResumesExactlyOnceAfterSlowConsumerCutOffs) {
  expect_peer_passes(kNode, "chromium_eventsource.mjs", kResumeSettings,
                     "chromium_eventsource: 60 events exactly once, in order");
}

}  // namespace
}  // namespace sluice::test
