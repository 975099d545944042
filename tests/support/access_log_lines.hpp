// The access-log lines a server process wrote, found in its output by a
// field they carry: the request's target, or its HTTP/2 stream.
#pragma once

#include <cstdint>
#include <string>

namespace sluice::test {

// The line of `log` around the byte at `at`; empty when `at` is npos.
inline std::string line_around(const std::string& log, std::size_t at) {
  if (at == std::string::npos) return std::string();
  const std::size_t start = log.rfind('\n', at) + 1;
  return log.substr(start, log.find('\n', at) - start);
}

// The first line for the request to `target`; empty if none.
inline std::string access_line_of_target(const std::string& log, const std::string& target) {
  return line_around(log, log.find(" target=" + target + " "));
}

// The last line for the request to `target`: a target requested again
// and again (a publish retried until answered) is logged each time.
inline std::string last_access_line_of_target(const std::string& log, const std::string& target) {
  return line_around(log, log.rfind(" target=" + target + " "));
}

// True when the first line for the request to `target` holds `what`.
inline bool target_logged_with(const std::string& log, const std::string& target, const std::string& what) {
  return access_line_of_target(log, target).find(what) != std::string::npos;
}

// The line of HTTP/2 stream `stream`; empty if none.
inline std::string access_line_of_stream(const std::string& log, std::int32_t stream) {
  return line_around(log, log.find(" stream=" + std::to_string(stream) + " "));
}

}  // namespace sluice::test
