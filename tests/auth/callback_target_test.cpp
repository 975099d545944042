#include "auth/callback_target.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>

namespace sluice::auth {
namespace {

TEST(CallbackTarget, ResolvesAnHttpUrl) {
  CallbackTarget t;
  ASSERT_EQ(resolve_callback_url("http://127.0.0.1:9000/auth/check?x=1", t), std::nullopt);
  EXPECT_EQ(t.host, "127.0.0.1:9000");
  EXPECT_EQ(t.target, "/auth/check?x=1");
  ASSERT_EQ(t.address.ss_family, AF_INET);
  EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in*>(&t.address)->sin_port), 9000);
  ASSERT_EQ(resolve_callback_url("http://[::1]:81/", t), std::nullopt);
  EXPECT_EQ(t.address.ss_family, AF_INET6);
  EXPECT_EQ(t.host, "[::1]:81");
  ASSERT_EQ(resolve_callback_url("http://localhost/", t), std::nullopt);
  EXPECT_EQ(t.target, "/");
}

TEST(CallbackTarget, RefusesWhatItCannotUseNamingTheKey) {
  CallbackTarget t;
  for (const char* bad : {"https://auth.example/check", "ws://127.0.0.1/x", "127.0.0.1:80/x", "http://", ""}) {
    const auto error = resolve_callback_url(bad, t);
    ASSERT_TRUE(error) << bad;
    EXPECT_TRUE(error->starts_with("config key 'auth.callback_url': ")) << *error;
  }
}

}  // namespace
}  // namespace sluice::auth
