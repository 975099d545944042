// A token that would end its header is never sent: every client refuses it
// (bad_token, fatal) before a byte of the request leaves, and the error
// does not quote it.
#include "bearer_token.hpp"

#include <gtest/gtest.h>

#include "client_test_support.hpp"
#include "sluice/client/sse_client.hpp"
#include "sluice/client/ws_client.hpp"

namespace sluice::client::test {
namespace {

constexpr const char* kInjecting = "abc\r\nX-Injected: 1";

ClientOptions with_token(std::string token) {
  ClientOptions options;
  options.token = [token] { return token; };
  options.reconnect.initial_delay = std::chrono::milliseconds(10);
  return options;
}

template <typename Client>
ClientError wait_for_failure(Client& client) {
  EXPECT_TRUE(wait_until([&] { return client.state() == ClientState::failed; }));
  return client.error();
}

TEST(BearerToken, AControlByteAnywhereDoesNotFitAHeader) {
  EXPECT_TRUE(detail::fits_a_header(""));
  EXPECT_TRUE(detail::fits_a_header("eyJhbGciOi.eyJzdWIiOi.sig-_~+/="));
  EXPECT_FALSE(detail::fits_a_header("abc\r\nX: 1"));
  EXPECT_FALSE(detail::fits_a_header("abc\n"));
  EXPECT_FALSE(detail::fits_a_header(std::string_view("a\0b", 3)));
  EXPECT_FALSE(detail::fits_a_header("tab\there"));
  EXPECT_FALSE(detail::fits_a_header("del\x7f"));
}

TEST(BearerToken, AnSseClientStopsBeforeConnecting) {
  FakeServer fake;
  SseClient client(with_token(kInjecting));
  ASSERT_EQ(client.start(http_url(fake.port(), "/sse/a")).kind, ErrorKind::none);
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::bad_token);
  EXPECT_TRUE(error.fatal);
  EXPECT_EQ(error.message.find("abc"), std::string::npos) << error.message;
  EXPECT_EQ(fake.accept(std::chrono::milliseconds(50)), nullptr);
}

TEST(BearerToken, AWebSocketClientSendsNoHandshake) {
  FakeServer fake;
  WsClient client(with_token(kInjecting));
  ASSERT_EQ(client.start(ws_url(fake.port(), "/ws/a")).kind, ErrorKind::none);
  auto peer = fake.accept();
  ASSERT_NE(peer, nullptr);
  const ClientError error = wait_for_failure(client);
  EXPECT_EQ(error.kind, ErrorKind::bad_token);
  EXPECT_TRUE(error.fatal);
  EXPECT_TRUE(peer->read_until_closed());
  EXPECT_TRUE(peer->buffer().empty()) << peer->buffer();
}

}  // namespace
}  // namespace sluice::client::test
