// Owns: what a reload (SIGHUP) finds changed in sluiced's settings. The
// settings are kept as they were given (the config file's keys flattened
// to `table.key = value`, then each --set), so a reload compares what the
// operator wrote, key by key, without a second copy of every field.
//
// A reload applies the keys that may change while serving
// (live_settings.hpp) and names every other key it finds changed, so an
// edit that needs a restart is not mistaken for applied.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::server {

// KEY and VALUE as written: the file's (flattened, each table's keys in
// name order), then the overrides' in their order.
using SettingList = std::vector<std::pair<std::string, std::string>>;

// Reads `path` (empty: none) and appends `overrides` ("KEY=VALUE"). Returns
// an error line (the file does not parse, a value of the wrong type), or
// nullopt with `out` filled.
[[nodiscard]] std::optional<std::string> read_setting_list(const std::string& path,
                                                           const std::vector<std::string>& overrides,
                                                           SettingList& out);

// The keys whose last value differs between `before` and `after` (set in
// one and not the other included), in name order.
[[nodiscard]] std::vector<std::string> changed_keys(const SettingList& before, const SettingList& after);

}  // namespace sluice::server
