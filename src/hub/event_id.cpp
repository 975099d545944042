#include "hub/event_id.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>

namespace sluice::hub {

std::string make_epoch() {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  char text[16];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, static_cast<std::uint64_t>(ms), 36);
  return std::string(text, end);
}

std::size_t format_event_id(std::string_view epoch, std::uint64_t seq, char* out) {
  const std::size_t n = std::min(epoch.size(), kMaxIdText - 21);
  std::memcpy(out, epoch.data(), n);
  out[n] = ':';
  const auto [end, ec] = std::to_chars(out + n + 1, out + kMaxIdText, seq);
  return static_cast<std::size_t>(end - out);
}

std::size_t format_stream_event_id(std::uint64_t epoch_ms, std::uint64_t seq, char* out) {
  char text[16];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, epoch_ms, 36);
  return format_event_id(std::string_view(text, static_cast<std::size_t>(end - text)), seq, out);
}

bool same_stream_epoch(std::string_view epoch, std::uint64_t epoch_ms) {
  char text[16];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, epoch_ms, 36);
  return epoch == std::string_view(text, static_cast<std::size_t>(end - text));
}

std::uint64_t parse_stream_epoch(std::string_view epoch) {
  std::uint64_t ms = 0;
  const auto [end, ec] = std::from_chars(epoch.data(), epoch.data() + epoch.size(), ms, 36);
  if (ec != std::errc() || end != epoch.data() + epoch.size()) return 0;
  // Only the form format_stream_event_id writes, so that one stream has one id text.
  return same_stream_epoch(epoch, ms) ? ms : 0;
}

ParsedId parse_event_id(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  const std::string_view digits = text.substr(colon + 1);
  ParsedId id{text.substr(0, colon)};
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id.seq);
  id.ok = !digits.empty() && ec == std::errc() && end == digits.data() + digits.size() && id.seq <= kMaxEventSeq;
  return id;
}

}  // namespace sluice::hub
