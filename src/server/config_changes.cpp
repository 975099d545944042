#include "server/config_changes.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <system_error>
#include <toml++/toml.h>

#include "server/int_settings.hpp"
#include "sluice/config.hpp"

namespace sluice::server {

namespace {

std::string type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "true or false";
    case toml::node_type::array: return "a list";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date or time";
    default: return "not an integer or a string";
  }
}

std::optional<std::string> flatten(const std::string& key, const toml::node& node, SettingList& out) {
  if (const auto* table = node.as_table()) {
    for (const auto& [name, child] : *table) {
      const std::string child_key = key.empty() ? std::string(name.str()) : key + "." + std::string(name.str());
      if (auto error = flatten(child_key, child, out)) return error;
    }
    return std::nullopt;
  }
  if (const auto* integer = node.as_integer()) {
    out.emplace_back(key, std::to_string(integer->get()));
    return std::nullopt;
  }
  // An integer key written otherwise is told its range. Its on/off keys
  // (0 or 1) take TOML's own words for them, true and false.
  if (const IntSetting* setting = find_int_setting(key); setting != nullptr && node.as_string() == nullptr) {
    if (const auto* flag = node.as_boolean(); flag != nullptr && setting->min == 0 && setting->max == 1) {
      out.emplace_back(key, flag->get() ? "1" : "0");
      return std::nullopt;
    }
    return "config key '" + key + "' must be an integer between " + std::to_string(setting->min) + " and " +
           std::to_string(setting->max) + " (got " + type_name(node.type()) + ")";
  }
  if (const auto* text = node.as_string()) {
    // A quoted number is a mistake in a file whose other numbers are bare:
    // taken as a number, it would hide that the writer meant something
    // else (a unit, a name). On the command line every value is text.
    if (const IntSetting* setting = find_int_setting(key)) {
      return "config key '" + key + "' must be an integer between " + std::to_string(setting->min) + " and " +
             std::to_string(setting->max) + ", written without quotes (got the string \"" + text->get() + "\")";
    }
    out.emplace_back(key, text->get());
    return std::nullopt;
  }
  // A list key's items as TOML writes a list: the comma list --set takes.
  if (const auto* array = node.as_array()) {
    std::string joined;
    for (const toml::node& item : *array) {
      const auto* text = item.as_string();
      if (text == nullptr) return "config key '" + key + "': a list's items must be strings";
      if (text->get().find(',') != std::string::npos) {
        return "config key '" + key + "': a list item may not hold a comma (got \"" + text->get() + "\")";
      }
      if (!joined.empty()) joined += ",";
      joined += text->get();
    }
    out.emplace_back(key, std::move(joined));
    return std::nullopt;
  }
  return "config key '" + key + "' has a value of the wrong type (" + type_name(node.type()) + ")";
}

// Each key's last value: a later --set overrides the file.
std::map<std::string, std::string> last_values(const SettingList& list) {
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : list) values[key] = value;
  return values;
}

// A directory or a device (/dev/zero, a FIFO) read as a file gives an empty
// table, which would set every key back to its default and be reported as
// a reload that worked.
std::optional<std::string> check_config_file(const std::string& path) {
  constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error) return "config file " + path + " could not be opened: " + error.message();
  if (!std::filesystem::is_regular_file(status)) return "config file " + path + " is not a regular file";
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxConfigBytes) {
    return "config file " + path + " is " + std::to_string(size) + " bytes, more than 1 MiB";
  }
  return std::nullopt;
}

// Written differently, a key may still mean the same: its default written
// out, or left out. Each side is applied alone to the defaults, and what
// they make is compared.
bool same_in_effect(const std::string& key, const std::string* before, const std::string* after) {
  Config old_config;
  Config new_config;
  if (before != nullptr && apply_setting(old_config, key, *before)) return false;
  if (after != nullptr && apply_setting(new_config, key, *after)) return false;
  return old_config == new_config;
}

}  // namespace

std::optional<std::string> read_setting_list(const std::string& path, const std::vector<std::string>& overrides,
                                             SettingList& out) {
  out.clear();
  if (!path.empty()) {
    if (auto error = check_config_file(path)) return error;
    toml::table table;
    try {
      table = toml::parse_file(path);
    } catch (const toml::parse_error& error) {
      return "config file " + path + ":" + std::to_string(error.source().begin.line) + ": " +
             std::string(error.description());
    }
    if (auto error = flatten("", table, out)) return error;
  }
  for (const std::string& setting : overrides) {
    const std::size_t eq = setting.find('=');
    if (eq == std::string::npos) return "--set wants KEY=VALUE (got '" + setting + "')";
    out.emplace_back(setting.substr(0, eq), setting.substr(eq + 1));
  }
  return std::nullopt;
}

std::vector<std::string> changed_keys(const SettingList& before, const SettingList& after) {
  const auto old_values = last_values(before);
  const auto new_values = last_values(after);
  std::vector<std::string> changed;
  for (const auto& [key, value] : new_values) {
    const auto old = old_values.find(key);
    const std::string* old_value = old == old_values.end() ? nullptr : &old->second;
    if ((old_value == nullptr || *old_value != value) && !same_in_effect(key, old_value, &value)) {
      changed.push_back(key);
    }
  }
  for (const auto& [key, value] : old_values) {
    if (!new_values.contains(key) && !same_in_effect(key, &value, nullptr)) changed.push_back(key);
  }
  std::sort(changed.begin(), changed.end());
  return changed;
}

}  // namespace sluice::server
