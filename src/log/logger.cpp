#include "log/logger.hpp"

#include <ctime>

namespace sluice::log {

namespace {

constexpr std::array<std::string_view, 4> kLevelNames{"debug", "info", "warn", "error"};

// RFC 3339 in UTC with milliseconds: 2025-01-31T12:00:00.123Z.
std::string_view format_now(std::span<char, 32> out) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  tm utc{};
  ::gmtime_r(&now.tv_sec, &utc);
  const std::size_t n = std::strftime(out.data(), out.size(), "%Y-%m-%dT%H:%M:%S", &utc);
  const int ms = static_cast<int>(now.tv_nsec / 1000000);
  const char tail[6] = {'.', static_cast<char>('0' + ms / 100), static_cast<char>('0' + ms / 10 % 10),
                        static_cast<char>('0' + ms % 10), 'Z', '\0'};
  std::copy(tail, tail + 5, out.data() + n);
  return {out.data(), n + 5};
}

}  // namespace

std::optional<Level> parse_level(std::string_view name) {
  for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
    if (name == kLevelNames[i]) return static_cast<Level>(i);
  }
  return std::nullopt;
}

std::string_view level_name(Level level) { return kLevelNames[static_cast<std::size_t>(level)]; }

std::optional<Format> parse_format(std::string_view name) {
  if (name == "logfmt") return Format::logfmt;
  if (name == "json") return Format::json;
  return std::nullopt;
}

std::optional<std::string> validate(const LogConfig& config) {
  if (config.max_line < LogConfig::kMinMaxLine || config.max_line > LogConfig::kMaxMaxLine) {
    return "config key 'log.max_line' must be in [" + std::to_string(LogConfig::kMinMaxLine) + ".." +
           std::to_string(LogConfig::kMaxMaxLine) + "] (got " + std::to_string(config.max_line) + ")";
  }
  return std::nullopt;
}

Logger::Logger(const LogConfig& config, Output& output)
    : level_(config.level),
      format_(config.format),
      max_line_(config.max_line),
      access_(config.access),
      output_(output) {}

Line::Line(Logger* logger, Level level, std::string_view message)
    : logger_(logger),
      writer_(std::span<char>(buffer_.data(), logger != nullptr ? logger->max_line_ : LineWriter::kMinLine),
              logger != nullptr ? logger->format_ : Format::logfmt) {
  if (logger_ == nullptr) return;
  char ts[32];
  writer_.field("level", level_name(level));
  writer_.field("ts", format_now(ts));
  writer_.field("msg", message);
}

Line::~Line() {
  if (logger_ != nullptr) logger_->output_.write_line(writer_.finish());
}

}  // namespace sluice::log
