// The WebSocket conformance suite's runner. Its cases are tables, one file
// per group of the Autobahn|Testsuite (ws_framing_test.cpp, ...); each case
// opens /ws-echo on a shared server, sends raw bytes and checks every frame
// that comes back, down to the close code.
#include <gtest/gtest.h>

#include <cstdio>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

// docs/WEBSOCKET.md states this number; change both together.
constexpr int kDocumentedCases = 244;

TEST_P(WsConformance, Exchange) { EXPECT_TRUE(run_exchange(port(), GetParam().make())); }

TEST(WsConformanceSuite, HasTheDocumentedNumberOfCases) {
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  int total = 0;
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const testing::TestSuite& suite = *unit.GetTestSuite(i);
    if (!std::string_view(suite.name()).ends_with("/WsConformance")) continue;
    std::printf("%-32s %3d cases\n", suite.name(), suite.total_test_count());
    total += suite.total_test_count();
  }
  std::printf("WebSocket conformance: %d cases\n", total);
  EXPECT_EQ(total, kDocumentedCases) << "update kDocumentedCases and docs/WEBSOCKET.md";
}

}  // namespace
}  // namespace sluice::test::ws
