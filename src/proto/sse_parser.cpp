// The parser follows the WHATWG "interpreting an event stream" algorithm.
// A line that arrives whole inside one chunk is parsed in place; only a line
// cut by a chunk boundary is copied into line_, so a large chunk costs no
// copy beyond the event's own data buffer.
#include "proto/sse_parser.hpp"

#include <limits>
#include <utility>

#include "line_end.hpp"

namespace sluice::proto::sse {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::uint8_t kBomDecided = 3;
constexpr std::string_view kDefaultType = "message";
// Enough for typical lines and events without a regrow; larger ones grow
// the buffers once and the capacity is kept.
constexpr std::size_t kInitialCapacity = 256;

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::uint64_t parse_saturating(std::string_view digits) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t value = 0;
  for (const char c : digits) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) return kMax;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

Parser::Parser(const ParserLimits& limits) : limits_(limits) {
  line_.reserve(kInitialCapacity);
  data_.reserve(kInitialCapacity);
}

ParseStatus Parser::feed(std::string_view bytes, Handler& handler) {
  if (status_ == ParseStatus::ok) bytes = skip_bom(bytes);
  while (status_ == ParseStatus::ok && !bytes.empty()) bytes = consume(bytes, handler);
  return status_;
}

void Parser::reset() {
  line_.clear();
  data_.clear();
  type_.clear();
  // An id line of an event that never completed must not leak into the
  // next stream.
  id_buffer_.assign(last_id_);
  status_ = ParseStatus::ok;
  bom_seen_ = 0;
  skip_lf_ = false;
}

std::string_view Parser::skip_bom(std::string_view bytes) {
  while (bom_seen_ < kBomDecided && !bytes.empty()) {
    if (bytes.front() != kBom[bom_seen_]) {
      // What looked like the start of a BOM was the start of the first line.
      hold_partial(kBom.substr(0, bom_seen_));
      bom_seen_ = kBomDecided;
      break;
    }
    ++bom_seen_;
    bytes.remove_prefix(1);
  }
  return bytes;
}

std::string_view Parser::consume(std::string_view bytes, Handler& handler) {
  if (std::exchange(skip_lf_, false) && bytes.front() == '\n') return bytes.substr(1);
  const std::size_t end = detail::find_line_end(bytes);
  if (end == std::string_view::npos) {
    hold_partial(bytes);
    return {};
  }
  skip_lf_ = bytes[end] == '\r';
  std::string_view line = bytes.substr(0, end);
  if (!line_.empty()) {
    hold_partial(line);
    line = line_;
  } else if (line.size() > limits_.max_line) {
    status_ = ParseStatus::line_too_long;
  }
  if (status_ == ParseStatus::ok) process_line(line, handler);
  line_.clear();
  return bytes.substr(end + 1);
}

void Parser::hold_partial(std::string_view bytes) {
  if (line_.size() + bytes.size() > limits_.max_line) {
    status_ = ParseStatus::line_too_long;
    return;
  }
  line_.append(bytes);
}

void Parser::process_line(std::string_view line, Handler& handler) {
  if (line.empty()) {
    dispatch(handler);
    return;
  }
  if (line.front() == ':') {
    std::string_view text = line.substr(1);
    if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    handler.on_comment(text);
    return;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    process_field(line, {}, handler);
    return;
  }
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  process_field(line.substr(0, colon), value, handler);
}

void Parser::process_field(std::string_view field, std::string_view value, Handler& handler) {
  if (field == "data") {
    append_data(value);
  } else if (field == "event") {
    type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) id_buffer_.assign(value);
  } else if (field == "retry") {
    if (all_digits(value)) handler.on_retry(parse_saturating(value));
  }
}

// The bound is on the data as dispatched: the lines joined by LF, without
// the LF each line leaves behind it here until the next one comes.
void Parser::append_data(std::string_view value) {
  if (data_.size() + value.size() > limits_.max_data) {
    status_ = ParseStatus::data_too_long;
    return;
  }
  data_.append(value);
  data_.push_back('\n');
}

void Parser::dispatch(Handler& handler) {
  last_id_.assign(id_buffer_);
  if (data_.empty()) {
    type_.clear();
    return;
  }
  // Every data line appended an LF; the last one is not part of the data.
  const std::string_view data(data_.data(), data_.size() - 1);
  handler.on_event(ReceivedEvent{last_id_, type_.empty() ? kDefaultType : std::string_view(type_), data});
  data_.clear();
  type_.clear();
}

}  // namespace sluice::proto::sse
