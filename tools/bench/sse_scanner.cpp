#include "sse_scanner.hpp"

#include <charconv>
#include <cstring>

namespace sluice::bench {

namespace {

// The value after "name:", without the one optional space the format allows.
std::string_view field_value(std::string_view line, std::size_t name_size) {
  std::string_view value = line.substr(name_size + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return value;
}

// sluiced's ids are "EPOCH:SEQ"; peers send the bare sequence.
bool parse_id(std::string_view text, std::uint64_t& id) {
  if (const auto colon = text.rfind(':'); colon != std::string_view::npos) text.remove_prefix(colon + 1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// Where the first event of `bytes` ends (just past its blank line), when the
// bytes before it ended with `previous`.
std::size_t event_end(std::string_view bytes, char previous) {
  if (bytes.empty()) return std::string_view::npos;
  if (previous == '\n' && bytes.front() == '\n') return 1;
  const void* at = ::memmem(bytes.data(), bytes.size(), "\n\n", 2);
  if (at == nullptr) return std::string_view::npos;
  return static_cast<std::size_t>(static_cast<const char*>(at) - bytes.data()) + 2;
}

}  // namespace

ScanStatus SseScanner::feed(std::string_view bytes, SseHandler& handler) {
  if (status_ != ScanStatus::ok) return status_;
  if (!carry_.empty() && !finish_carry(bytes, handler)) return status_;
  const std::size_t used = scan(bytes, handler);
  if (status_ == ScanStatus::ok) keep_tail(bytes.substr(used));
  return status_;
}

bool SseScanner::finish_carry(std::string_view& bytes, SseHandler& handler) {
  const std::size_t end = event_end(bytes, carry_.back());
  if (end == std::string_view::npos) {
    keep_tail(bytes);
    bytes = {};
    return status_ == ScanStatus::ok;
  }
  carry_.append(bytes.data(), end);
  bytes.remove_prefix(end);
  scan(carry_, handler);
  carry_.clear();
  return status_ == ScanStatus::ok;
}

void SseScanner::keep_tail(std::string_view tail) {
  if (carry_.size() + tail.size() > max_event_) return fail(ScanStatus::event_too_large, tail.substr(0, 80));
  carry_.append(tail);
}

// Returns how many bytes of whole events were used; the rest is a cut event.
std::size_t SseScanner::scan(std::string_view bytes, SseHandler& handler) {
  Pending pending;
  std::size_t pos = 0;
  std::size_t event_start = 0;
  while (pos < bytes.size()) {
    const void* nl = std::memchr(bytes.data() + pos, '\n', bytes.size() - pos);
    if (nl == nullptr) break;
    const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data());
    const std::string_view line = bytes.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty()) {
      if (!take_line(line, pending)) return 0;
      continue;
    }
    if (pending.has_data) {
      handler.on_event(pending.event);
    } else if (pending.has_comment) {
      handler.on_comment(pending.comment);
    }
    pending = Pending();
    event_start = pos;
  }
  return event_start;
}

bool SseScanner::take_line(std::string_view line, Pending& pending) {
  if (line.back() == '\r') {
    fail(ScanStatus::bad_line, line);
    return false;
  }
  if (line.front() == ':') {
    pending.has_comment = true;
    pending.comment = line.substr(1);
    return true;
  }
  if (line.starts_with("data:") && !pending.has_data) {
    pending.has_data = true;
    pending.event.data = field_value(line, 4);
    return true;
  }
  if (line.starts_with("id:") && parse_id(field_value(line, 2), pending.event.id)) {
    pending.event.has_id = true;
    return true;
  }
  if (line.starts_with("event:") || line.starts_with("retry:")) return true;
  fail(ScanStatus::bad_line, line);
  return false;
}

void SseScanner::fail(ScanStatus why, std::string_view line) {
  status_ = why;
  bad_line_.assign(line.substr(0, 80));
}

}  // namespace sluice::bench
