// The /ws JSON protocol end to end: what the acks carry.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

// A subscription that has received no event yet resumes after the id its
// ack carried: the events published in between are replayed, not missed.
TEST(WsJsonProtocol, TheSubscribeAckCarriesTheTopicsNewestIdToResumeFrom) {
  RunningServer server;
  const std::uint16_t port = server.port();
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(http_request(port, "POST", "/pub/t", "before " + std::to_string(i)).status, 200);
  }
  std::string last_id;
  {
    WsTestClient client(port);
    ASSERT_TRUE(client.open("/ws"));
    client.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","req":1})"});
    const std::optional<ServerFrame> ack = client.read_message();
    ASSERT_TRUE(ack);
    const std::size_t at = ack->payload.find("\"last_id\":\"");
    ASSERT_NE(at, std::string::npos) << ack->payload;
    last_id = ack->payload.substr(at + 11, ack->payload.find('"', at + 11) - (at + 11));
    EXPECT_EQ(seq_of(last_id), 3u) << ack->payload;
  }
  ASSERT_EQ(http_request(port, "POST", "/pub/t", "while away").status, 200);
  WsTestClient again(port);
  ASSERT_TRUE(again.open("/ws"));
  again.send({.opcode = kText, .payload = R"({"op":"subscribe","topic":"t","since":")" + last_id + R"(","req":2})"});
  const std::optional<ServerFrame> ack = again.read_message();
  ASSERT_TRUE(ack);
  EXPECT_NE(ack->payload.find("\"ok\":true"), std::string::npos) << ack->payload;
  const std::optional<ServerFrame> replayed = again.read_message();
  ASSERT_TRUE(replayed);
  EXPECT_NE(replayed->payload.find("\"data\":\"while away\""), std::string::npos) << replayed->payload;
}

}  // namespace
}  // namespace sluice::test::ws
