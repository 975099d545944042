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
  std::size_t pos = 0;
  while (pos < bytes.size() && status_ == ScanStatus::ok) {
    std::size_t next = take_simple(bytes, pos, handler);
    if (next == pos) next = take_lines(bytes, pos, handler);
    if (next == std::string_view::npos) break;
    pos = next;
  }
  return pos;
}

// The usual event, "[id: X\n]data: Y\n\n", with one memchr per line and no
// dispatch per line. Returns where the next event starts, `pos` when the
// event has another shape (take_lines reads it, and refuses what is
// wrong), or npos when it is cut by the end of `bytes`.
std::size_t SseScanner::take_simple(std::string_view bytes, std::size_t pos, SseHandler& handler) {
  const char* data = bytes.data();
  const std::size_t size = bytes.size();
  const auto line_end = [&](std::size_t from) -> std::size_t {
    const void* nl = std::memchr(data + from, '\n', size - from);
    return nl == nullptr ? std::string_view::npos : static_cast<std::size_t>(static_cast<const char*>(nl) - data);
  };
  SseEvent event;
  std::size_t at = pos;
  if (size - at >= 3 && data[at] == 'i' && data[at + 1] == 'd' && data[at + 2] == ':') {
    const std::size_t end = line_end(at);
    if (end == std::string_view::npos) return end;
    event.id_text = field_value(bytes.substr(at, end - at), 2);
    if (!event.id_text.empty() && event.id_text.back() == '\r') return pos;
    if (parse_ids_ && !parse_id(event.id_text, event.id)) return pos;
    event.has_id = true;
    at = end + 1;
  }
  if (size - at < 5 || std::memcmp(data + at, "data:", 5) != 0) return pos;
  const std::size_t end = line_end(at);
  if (end == std::string_view::npos || end + 1 >= size) return std::string_view::npos;
  if (data[end + 1] != '\n' || data[end - 1] == '\r') return pos;
  event.data = field_value(bytes.substr(at, end - at), 4);
  handler.on_event(event);
  return end + 2;
}

// Reads one event line by line from `pos`: where the next starts, or npos
// when it is cut or refused (status_ says which).
std::size_t SseScanner::take_lines(std::string_view bytes, std::size_t pos, SseHandler& handler) {
  Pending pending;
  while (pos < bytes.size()) {
    const void* nl = std::memchr(bytes.data() + pos, '\n', bytes.size() - pos);
    if (nl == nullptr) break;
    const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data());
    const std::string_view line = bytes.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty()) {
      if (!take_line(line, pending)) return std::string_view::npos;
      continue;
    }
    if (pending.has_data) {
      handler.on_event(pending.event);
    } else if (pending.has_comment) {
      handler.on_comment(pending.comment);
    }
    return pos;
  }
  return std::string_view::npos;
}

// Dispatched on the first byte: a line costs a compare or two, so the scan
// runs at about memchr's speed over the stream.
bool SseScanner::take_line(std::string_view line, Pending& pending) {
  if (line.back() == '\r') {
    fail(ScanStatus::bad_line, line);
    return false;
  }
  switch (line.front()) {
    case ':':
      pending.has_comment = true;
      pending.comment = line.substr(1);
      return true;
    case 'd':
      if (!line.starts_with("data:") || pending.has_data) break;
      pending.has_data = true;
      pending.event.data = field_value(line, 4);
      return true;
    case 'i':
      if (!line.starts_with("id:")) break;
      pending.event.id_text = field_value(line, 2);
      if (parse_ids_ && !parse_id(pending.event.id_text, pending.event.id)) break;
      pending.event.has_id = true;
      return true;
    case 'e':
    case 'r':
      if (line.starts_with("event:") || line.starts_with("retry:")) return true;
      break;
    default:
      break;
  }
  fail(ScanStatus::bad_line, line);
  return false;
}

void SseScanner::fail(ScanStatus why, std::string_view line) {
  status_ = why;
  bad_line_.assign(line.substr(0, 80));
}

}  // namespace sluice::bench
