// Owns: the table of integer settings (threads, limits, timeouts, budgets,
// pool shape...): finding a key's row, setting its field after a range
// check, and the lines `sluiced --help-config` prints for them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/config.hpp"

namespace sluice::server {

struct IntSetting {
  std::string_view key;
  std::int64_t min;
  std::int64_t max;
  std::string_view help;
  void (*set)(Config&, std::int64_t);
  std::int64_t (*get)(const Config&);
};

// The row for `key`, or nullptr when `key` is not an integer setting.
[[nodiscard]] const IntSetting* find_int_setting(std::string_view key);

// Sets the field of `setting` from `text`, or returns the one-line error
// naming the key and its range (nothing is set then).
[[nodiscard]] std::optional<std::string> apply_int_setting(Config& config, const IntSetting& setting,
                                                           std::string_view text);

// One line per integer setting: key, default, help, range.
[[nodiscard]] std::string describe_int_settings();

}  // namespace sluice::server
