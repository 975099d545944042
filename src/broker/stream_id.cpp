#include "broker/stream_id.hpp"

#include <charconv>
#include <cstring>

namespace sluice::broker {

namespace {

// Both parts and a separator; `base` is the first part's.
std::size_t format_pair(StreamId id, int base, char separator, char* out, std::size_t room) {
  const auto first = std::to_chars(out, out + room, id.epoch, base);
  *first.ptr = separator;
  const auto second = std::to_chars(first.ptr + 1, out + room, id.seq);
  return static_cast<std::size_t>(second.ptr - out);
}

// Reads "A<separator>B"; then only the text this code writes for that id is
// taken (no leading zeros, no upper case), so one id has one text.
std::optional<StreamId> parse_pair(std::string_view text, int base, char separator, std::size_t room) {
  const auto split = text.find(separator);
  if (split == std::string_view::npos || text.size() > room) return std::nullopt;
  StreamId id;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto first = std::from_chars(begin, begin + split, id.epoch, base);
  if (first.ec != std::errc() || first.ptr != begin + split) return std::nullopt;
  const auto second = std::from_chars(begin + split + 1, end, id.seq);
  if (second.ec != std::errc() || second.ptr != end) return std::nullopt;
  char canonical[kMaxStreamIdText];
  const std::size_t n = format_pair(id, base, separator, canonical, sizeof canonical);
  if (n != text.size() || std::memcmp(canonical, begin, n) != 0) return std::nullopt;
  return id;
}

}  // namespace

std::size_t format_stream_id(StreamId id, char* out) { return format_pair(id, 10, '-', out, kMaxStreamIdText); }

std::optional<StreamId> parse_stream_id(std::string_view text) {
  return parse_pair(text, 10, '-', kMaxStreamIdText);
}

std::size_t format_event_id(StreamId id, char* out) { return format_pair(id, 36, ':', out, kMaxEventIdText); }

std::optional<StreamId> parse_event_id(std::string_view text) { return parse_pair(text, 36, ':', kMaxEventIdText); }

}  // namespace sluice::broker
