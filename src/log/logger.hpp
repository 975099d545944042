// Owns: Logger, sluiced's structured log: a level filter, a line format,
// and the Output the lines go to; Line, one line being built.
//
//   logger.info("listening").field("address", "127.0.0.1:8080").field("loops", 2);
//
// The line is formatted on the caller's stack (no allocation) and written
// when the statement ends. Below the configured level nothing is formatted.
//
// The default format is logfmt: one line of key=value pairs that a person
// reads in journalctl or a terminal and that Loki, Vector and most log
// shippers parse as it is; log.format=json gives JSON lines for pipelines
// that want typed values. Both escape every value to printable ASCII, so a
// value can never forge a field or a line (log/line_writer.hpp).
//
// What a logger must never write: a message's body, or a credential (an
// Authorization or Cookie header, a token in a query string). Nothing in
// sluice logs a body; headers and request targets go through log/redact.hpp.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "log/line_writer.hpp"
#include "log/output.hpp"

namespace sluice::log {

enum class Level : std::uint8_t { debug, info, warn, error };

[[nodiscard]] std::optional<Level> parse_level(std::string_view name);
[[nodiscard]] std::string_view level_name(Level level);
[[nodiscard]] std::optional<Format> parse_format(std::string_view name);

// The log.* settings.
struct LogConfig {
  Level level = Level::info;         // log.level: debug, info, warn, error
  Format format = Format::logfmt;    // log.format: logfmt, json
  std::size_t max_line = 2048;       // log.max_line: bytes per line, newline included
  bool access = false;               // log.access: one line per request
  static constexpr std::size_t kMinMaxLine = 256;
  static constexpr std::size_t kMaxMaxLine = kMaxLineBytes;
};

// Checks the ranges; returns a line naming the key, or nullopt.
[[nodiscard]] std::optional<std::string> validate(const LogConfig& config);

class Logger;

// One line being built; written out when it is destroyed (at the end of
// the statement that made it). Fields after a cut line are ignored.
class Line {
 public:
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  ~Line();

  template <class T>
  Line& field(std::string_view key, const T& value) {
    if (logger_ != nullptr) writer_.field(key, value);
    return *this;
  }

 private:
  friend class Logger;
  Line(Logger* logger, Level level, std::string_view message);

  Logger* logger_;  // null: below the level, nothing is written
  std::array<char, kMaxLineBytes> buffer_;
  LineWriter writer_;
};

class Logger {
 public:
  // `output` must outlive the logger. `config` must be valid.
  Logger(const LogConfig& config, Output& output);

  [[nodiscard]] bool enabled(Level level) const { return level >= level_.load(std::memory_order_relaxed); }
  Line debug(std::string_view message) { return {enabled(Level::debug) ? this : nullptr, Level::debug, message}; }
  Line info(std::string_view message) { return {enabled(Level::info) ? this : nullptr, Level::info, message}; }
  Line warn(std::string_view message) { return {enabled(Level::warn) ? this : nullptr, Level::warn, message}; }
  Line error(std::string_view message) { return {enabled(Level::error) ? this : nullptr, Level::error, message}; }

  // Any thread, any time (a config reload): later lines use the new level.
  void set_level(Level level) { level_.store(level, std::memory_order_relaxed); }
  [[nodiscard]] Format format() const { return format_; }
  [[nodiscard]] std::size_t max_line() const { return max_line_; }
  [[nodiscard]] bool access() const { return access_.load(std::memory_order_relaxed); }
  // Any thread, any time (a config reload): requests answered from then on
  // are logged, or not.
  void set_access(bool on) { access_.store(on, std::memory_order_relaxed); }
  // Lines the output refused (it would have blocked).
  [[nodiscard]] std::uint64_t dropped() const { return output_.dropped(); }

 private:
  friend class Line;

  std::atomic<Level> level_;
  Format format_;
  std::size_t max_line_;
  std::atomic<bool> access_;
  Output& output_;
};

}  // namespace sluice::log
