#include "server/memory_shares.hpp"

#include <gtest/gtest.h>

#include "server/int_settings.hpp"

namespace sluice::server {
namespace {

TEST(MemoryShares, TheDefaultsLeaveRoomForTheLargestMessageAndBody) {
  const Config config;
  EXPECT_EQ(check_memory_shares(config), std::nullopt);
  EXPECT_LE(message_share(config), config.connection.memory_bytes);
  EXPECT_LE(body_share(config), config.connection.memory_bytes);
}

// The shares are what the buffers are charged past their resting sizes:
// 16 KiB for a message or joined body, 32 KiB for the input buffer.
TEST(MemoryShares, AMessageCountsTwiceAndABodyItsRawBytesAndItsJoinedCopy) {
  Config config;
  config.ws.max_message = 1 << 20;
  EXPECT_EQ(message_share(config), 2u * ((1u << 20) - (16u << 10)));
  config.http.max_body = 4 << 20;
  config.connection.receive_budget = 1 << 20;
  EXPECT_EQ(body_share(config), ((1u << 20) - (32u << 10)) + ((4u << 20) - (16u << 10)));
  config.http.max_body = 1000;  // under both resting sizes: nothing charged
  EXPECT_EQ(body_share(config), 0u);
}

TEST(MemoryShares, ARaisedMessageLimitNamesBothKeysWhatIsNeededAndTheRange) {
  Config config;
  ASSERT_EQ(apply_int_setting(config, *find_int_setting("ws.max_message"), "2097152"), std::nullopt);
  const std::optional<std::string> error = check_memory_shares(config);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error,
            "config key 'limits.connection_bytes' (2097152) must be at least 4161536 for ws.max_message = 2097152 "
            "(a message being joined and a copy held while it waits); raise it (between 65536 and 1073741824) or "
            "lower ws.max_message");
  EXPECT_EQ(validate(config), error);
  config.connection.memory_bytes = message_share(config);
  EXPECT_EQ(check_memory_shares(config), std::nullopt);
  --config.connection.memory_bytes;
  EXPECT_TRUE(check_memory_shares(config));
}

TEST(MemoryShares, ARaisedBodyLimitNamesBothKeys) {
  Config config;
  config.http.max_body = 4 << 20;
  const std::optional<std::string> error = check_memory_shares(config);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("'limits.connection_bytes' (2097152) must be at least 5218368 for http.max_body = 4194304"),
            std::string::npos)
      << *error;
  EXPECT_EQ(error->find('\n'), std::string::npos);
  config.connection.memory_bytes = body_share(config);
  EXPECT_EQ(check_memory_shares(config), std::nullopt);
}

// The TLS record reserve: a sixteenth of the cap by default, the key's
// value when set, none without TLS; past half the cap the key is refused
// by name with its range.
TEST(MemoryShares, TheRecordReserveIsASixteenthOfTheCapByDefaultAndNoneWithoutTls) {
  Config config;
  EXPECT_EQ(tls_record_reserve(config), 0u);
  config.tls.cert_file = "server.pem";
  EXPECT_EQ(tls_record_reserve(config), std::size_t{1} << 26);
  config.tls_record_reserve_bytes = 1 << 20;
  EXPECT_EQ(tls_record_reserve(config), std::size_t{1} << 20);
  EXPECT_EQ(check_memory_shares(config), std::nullopt);
  config.tls_record_reserve_bytes = (std::int64_t{1} << 29) + 1;
  EXPECT_EQ(check_memory_shares(config),
            "config key 'limits.tls_record_reserve_bytes' (536870913) must be between 0 and half of "
            "limits.server_bytes (536870912)");
}

}  // namespace
}  // namespace sluice::server
