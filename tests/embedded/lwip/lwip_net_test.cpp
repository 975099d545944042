#include "lwip_net.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "raw_peers.hpp"

namespace sluice::test {
namespace {

std::string pattern(std::size_t size, char seed) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<char>(seed + static_cast<char>(i % 61));
  return out;
}

TEST(LwipNet, ARawClientAndARawListenerMoveBytesBothWays) {
  LwipNet net;
  std::unique_ptr<RawPeer> server;
  RawListener listener(net, [&](tcp_pcb* pcb) {
    server = std::make_unique<RawPeer>(pcb);
    return ERR_OK;
  });
  ASSERT_TRUE(listener.ok());
  std::unique_ptr<RawPeer> client = RawPeer::connect(net);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(net.run_until([&] { return server != nullptr && client->connected(); }));

  // More than lwIP's send buffer (64 KiB here) each way, so both sides wait
  // for acknowledgements and resume from tcp_sent.
  const std::string up = pattern(200000, 'a');
  const std::string down = pattern(150000, 'A');
  client->send(up);
  server->send(down);
  ASSERT_TRUE(net.run_until([&] { return server->received().size() == up.size() && client->received().size() == down.size(); }));
  EXPECT_TRUE(server->received() == up);
  EXPECT_TRUE(client->received() == down);
  EXPECT_GE(net.sent_by_client().data_segments, up.size() / 1460);
  EXPECT_EQ(net.sent_by_client().data_bytes, up.size());
  EXPECT_EQ(net.sent_by_server().data_bytes, down.size());
  EXPECT_EQ(net.undeliverable(), 0u);
  EXPECT_FALSE(client->failed() || server->failed());

  client->close();
  ASSERT_TRUE(net.run_until([&] { return server->peer_closed(); }));
}

TEST(LwipNet, TimeIsLwipsOwnAndMovesOnlyWhenNothingIsInFlight) {
  LwipNet net;
  std::unique_ptr<RawPeer> server;
  RawListener listener(net, [&](tcp_pcb* pcb) {
    server = std::make_unique<RawPeer>(pcb);
    return ERR_OK;
  });
  std::unique_ptr<RawPeer> client = RawPeer::connect(net);
  ASSERT_TRUE(net.run_until([&] { return server != nullptr && client->connected(); }));
  const std::uint64_t acks_before = net.sent_by_server().bare_acks;
  const std::uint32_t start = LwipNet::now_ms();
  client->send("one small segment");
  // Delivered at once, without the clock moving; lwIP delays its ACK of a
  // lone segment until its fast timer (250 ms), which the clock then reaches.
  ASSERT_TRUE(net.run_until([&] { return server->received().size() == 17; }));
  EXPECT_EQ(LwipNet::now_ms(), start);
  ASSERT_TRUE(net.run_until([&] { return net.sent_by_server().bare_acks > acks_before; }));
  EXPECT_GT(LwipNet::now_ms(), start);
  EXPECT_LE(LwipNet::now_ms() - start, 500u);
}

}  // namespace
}  // namespace sluice::test
