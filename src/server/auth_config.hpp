// Owns: the auth.* settings (AuthConfig in sluice/config.hpp): their names,
// ranges and defaults, applied through apply_setting() like every other
// key and listed by `sluiced --help-config`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sluice/config.hpp"

namespace sluice::server {

// True when `key` is an auth.* key; then `error` is set when the value is
// refused (one line naming the key and what it takes).
[[nodiscard]] bool apply_auth_setting(Config& config, std::string_view key, std::string_view value,
                                      std::optional<std::string>& error);

// The auth.* keys with their defaults and ranges, one per line.
[[nodiscard]] std::string describe_auth_settings();

}  // namespace sluice::server
