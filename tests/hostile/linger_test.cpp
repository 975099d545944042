// After the server has said its last word and closed its side, it reads
// and throws away what the client still sends, waiting for the client's
// end for timeouts.linger_ms. A client that keeps sending must not keep
// the connection (its slot, the loop's reads) past that: the wait runs
// from the close, and bytes thrown away do not restart it.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "test_client.hpp"

namespace sluice::test {
namespace {

TEST(Linger, AClientThatKeepsSendingAfterTheCloseIsCutOffAtTheLingerTimeout) {
  server::Config config;
  config.linger_timeout_ms = 200;
  RunningServer server(config);
  TestClient client(server.port());
  client.send("NOT HTTP\r\n\r\n");
  EXPECT_EQ(read_reply(client).status, 400);
  // A byte every 20 ms, each within the linger timeout: once the server has
  // closed for good, a send is answered with a reset and fails.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool cut_off = false;
  while (!cut_off && std::chrono::steady_clock::now() < deadline) {
    cut_off = ::send(client.fd(), "x", 1, MSG_NOSIGNAL) < 0 && (errno == ECONNRESET || errno == EPIPE);
    if (!cut_off) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the pace under test
  }
  EXPECT_TRUE(cut_off) << "the connection was kept while the client sent";
}

}  // namespace
}  // namespace sluice::test
