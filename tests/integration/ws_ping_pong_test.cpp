// Conformance group 2 (Autobahn|Testsuite): pings of every allowed size are
// answered with their payload, a ping over 125 bytes fails the connection,
// and unsolicited pongs are ignored.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

std::string bytes_of(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>(i * 7);
  return out;
}

Exchange ping(const std::string& payload) { return script({{.opcode = kPing, .payload = payload}}, {pong(payload)}); }

// The probe's pong must be the first frame back: `unasked` drew no reply.
Exchange ignored_then_probe(const WireFrame& unasked) {
  return script({unasked, {.opcode = kPing, .payload = "probe"}}, {pong("probe")});
}

Exchange ten_pings() {
  std::vector<WireFrame> pings;
  std::vector<Reply> pongs;
  for (int i = 0; i < 10; ++i) {
    const std::string payload = "ping " + std::to_string(i);
    pings.push_back({.opcode = kPing, .payload = payload});
    pongs.push_back(pong(payload));
  }
  return script(pings, pongs);
}

std::vector<WsCase> ping_pong_cases() {
  return {
      {"ping_empty", [] { return ping(""); }},
      {"ping_text", [] { return ping("Hello, world!"); }},
      {"ping_binary", [] { return ping(bytes_of(8)); }},
      {"ping_125", [] { return ping(bytes_of(125)); }},
      {"ping_126", [] { return script({{.opcode = kPing, .payload = bytes_of(126)}}, {closing(1002)}); }},
      {"ping_125_one_byte_at_a_time", [] { return chopped(ping(bytes_of(125)), 1); }},
      {"unsolicited_pong_empty", [] { return ignored_then_probe({.opcode = kPong}); }},
      {"unsolicited_pong_payload", [] { return ignored_then_probe({.opcode = kPong, .payload = "unasked"}); }},
      {"unsolicited_pong_binary", [] { return ignored_then_probe({.opcode = kPong, .payload = bytes_of(125)}); }},
      {"ten_pings_in_one_write", [] { return chopped(ten_pings(), 4096); }},
      {"ten_pings_one_byte_at_a_time", [] { return chopped(ten_pings(), 1); }},
  };
}

INSTANTIATE_TEST_SUITE_P(G2_PingPong, WsConformance, testing::ValuesIn(ping_pong_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
