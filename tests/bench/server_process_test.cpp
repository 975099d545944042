// The bench stops a server it started together with whatever the command
// started: a profiler or a shell around the server is stopped with the
// server inside, which would otherwise run on after the bench, on a core.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "server_process.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

bool can_connect(std::uint16_t port) { return TestClient(port).connected(); }

TEST(ServerProcess, StoppingAWrappedServerStopsTheServerInsideIt) {
  bench::ServerProcess server;
  // The shell waits for the server it started in the background: it is
  // the command's first process, the server its child.
  const std::string command = "/bin/sh -c '" + env_path("SLUICED") + " --listen 127.0.0.1:0 --threads 1 & wait'";
  ASSERT_EQ(server.start(command), "");
  const std::uint16_t port = server.endpoint().port;
  ASSERT_TRUE(can_connect(port));
  server.stop();
  bool refused = false;
  for (int i = 0; i < 500 && !refused; ++i) {  // the server drains, then closes its listener: polls, bounded
    refused = !can_connect(port);
    if (!refused) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(refused) << "the server inside the shell still listens on " << port;
}

}  // namespace
}  // namespace sluice::test
