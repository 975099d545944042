// A reload's live settings reach the loops as one snapshot they share,
// while they serve: reloads run on a thread of their own (Server::reload)
// and on loop 0 (request_reload) at once, requests come in meanwhile, and
// once the last reload is reported every loop binds new work by it; two
// reloads never run a step at once. These tests also run under
// ThreadSanitizer (make test).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/live_settings.hpp"
#include "test_client.hpp"

namespace sluice::test {
namespace {

TEST(ReloadThreads, ReloadsOnTwoThreadsReachEveryLoopWhileItServes) {
  server::Config config;
  config.threads = 2;
  config.http.max_body = 4096;
  std::atomic<std::size_t> max_body{4096};  // what the next reload reads
  std::atomic<int> reported{0};
  // A step with plain state, as sluiced's is (what it applied last): two
  // reloads never run it at once, or ThreadSanitizer would see the race.
  int steps_run = 0;
  RunningServer running(config, [&](server::Server& s) {
    s.on_reload([&s, &max_body, &steps_run] {
      ++steps_run;
      server::Config read;
      read.http.max_body = max_body.load();
      return server::apply_live_settings(s, read);
    });
    s.on_reloaded([&](const std::vector<std::string>& failures) {
      EXPECT_TRUE(failures.empty()) << failures.front();
      ++reported;
    });
  });
  server::Server& server = running.server();
  ASSERT_EQ(server.loops(), 2u);
  const std::string body(2000, 'b');  // fits 4096, not 1000

  std::thread direct([&] {
    for (int i = 0; i < 20; ++i) {
      max_body = i % 2 == 0 ? 1000 : 4096;
      const std::vector<std::string> failures = server.reload();
      EXPECT_TRUE(failures.empty()) << failures.front();
    }
  });
  std::thread asked([&] {
    for (int i = 0; i < 20; ++i) {
      const int before = reported.load();
      server.request_reload();
      ASSERT_TRUE(wait_until([&] { return reported.load() > before; }));
    }
  });
  for (int i = 0; i < 40; ++i) {
    const int status = http_request(running.port(), "POST", "/pub/news", body).status;
    EXPECT_TRUE(status == 200 || status == 413) << status;
  }
  direct.join();
  asked.join();

  // The last reload, reported once both loops have taken it: whichever
  // loop takes a new connection, the new limit binds it.
  max_body = 1000;
  const int before = reported.load();
  server.request_reload();
  ASSERT_TRUE(wait_until([&] { return reported.load() > before; }));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(http_request(running.port(), "POST", "/pub/news", body).status, 413) << i;
  EXPECT_EQ(http_request(running.port(), "POST", "/pub/news", std::string(900, 's')).status, 200);
  EXPECT_EQ(steps_run, 41);
}

}  // namespace
}  // namespace sluice::test
