#include "io/socket.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

namespace sluice::io {
namespace {

TEST(Endpoint, ParsesHostAndPort) {
  Endpoint e;
  ASSERT_TRUE(parse_endpoint("0.0.0.0:9000", e));
  EXPECT_EQ(e.host, "0.0.0.0");
  EXPECT_EQ(e.port, 9000);
  ASSERT_TRUE(parse_endpoint(":81", e));
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 81);
}

TEST(Endpoint, RejectsBadPorts) {
  Endpoint e;
  EXPECT_FALSE(parse_endpoint("127.0.0.1", e));
  EXPECT_FALSE(parse_endpoint("127.0.0.1:", e));
  EXPECT_FALSE(parse_endpoint("127.0.0.1:65536", e));
  EXPECT_FALSE(parse_endpoint("127.0.0.1:8o", e));
}

TEST(Socket, ListensOnAnEphemeralPortAndAccepts) {
  const int listener = listen_tcp({"127.0.0.1", 0}, {});
  ASSERT_GE(listener, 0);
  const std::uint16_t port = local_port(listener);
  EXPECT_NE(port, 0);
  EXPECT_EQ(accept_nonblocking(listener), -EAGAIN);
  const int client = connect_tcp({"127.0.0.1", port});
  ASSERT_GE(client, 0);
  int accepted = -EAGAIN;
  for (int i = 0; i < 1000 && accepted == -EAGAIN; ++i) accepted = accept_nonblocking(listener);
  ASSERT_GE(accepted, 0);
  EXPECT_EQ(set_nodelay(accepted, true), 0);
  EXPECT_EQ(set_notsent_lowat(accepted, 16384), 0);
  EXPECT_EQ(set_send_buffer(accepted, 4096), 0);
  ::close(accepted);
  ::close(client);
  ::close(listener);
}

TEST(Socket, ListensAndConnectsOnIpv6InBrackets) {
  const int listener = listen_tcp({"[::1]", 0}, {});
  ASSERT_GE(listener, 0);
  const std::uint16_t port = local_port(listener);
  ASSERT_NE(port, 0);
  const int client = connect_tcp({"[::1]", port});
  ASSERT_GE(client, 0);
  // The connection is in the backlog once connect() returned.
  const int accepted = accept_nonblocking(listener);
  EXPECT_GE(accepted, 0);
  if (accepted >= 0) ::close(accepted);
  ::close(client);
  ::close(listener);
}

TEST(Socket, RefusesAnAddressItCannotParse) {
  EXPECT_EQ(listen_tcp({"not-an-ip", 0}, {}), -EINVAL);
  EXPECT_EQ(listen_tcp({"::1", 0}, {}), -EINVAL);  // IPv6 needs its brackets
  EXPECT_EQ(listen_tcp({"[127.0.0.1]", 0}, {}), -EINVAL);
}

}  // namespace
}  // namespace sluice::io
