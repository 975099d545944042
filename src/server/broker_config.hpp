// Owns: the broker.* settings that are not numbers (broker.url,
// broker.prefix), the start-up checks across broker keys, and turning
// BrokerSettings into what each loop's broker is built from.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "broker/broker.hpp"
#include "sluice/config.hpp"

namespace sluice::server {

// True when `key` is broker.url or broker.prefix; then `error` is set when
// the value is refused (one line naming the key and what it takes).
[[nodiscard]] bool apply_broker_setting(BrokerSettings& broker, std::string_view key, std::string_view value,
                                        std::optional<std::string>& error);

// The checks that involve more than one key; nullopt when they pass.
[[nodiscard]] std::optional<std::string> check_broker(const Config& config);

// broker.url and broker.prefix with their defaults, one per line.
[[nodiscard]] std::string describe_broker_settings();

// What every loop's broker is built from; `config.broker` must be enabled
// and checked.
[[nodiscard]] broker::BrokerConfig make_broker_config(const Config& config);

}  // namespace sluice::server
