#include "http_reply.hpp"

#include <charconv>
#include <cstdint>

namespace sluice::bench {

namespace {

constexpr std::size_t kMaxHead = 16384;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  }
  return true;
}

bool parse_status_line(std::string_view line, int& status) {
  if (!line.starts_with("HTTP/1.1 ") && !line.starts_with("HTTP/1.0 ")) return false;
  if (line.size() < 12 || (line.size() > 12 && line[12] != ' ')) return false;
  const auto [end, ec] = std::from_chars(line.data() + 9, line.data() + 12, status);
  return ec == std::errc() && end == line.data() + 12;
}

bool take_header(std::string_view line, ReplyHead& out) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view name = line.substr(0, colon);
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  if (iequals(name, "content-length")) {
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out.content_length);
    out.has_length = true;
    return ec == std::errc() && end == value.data() + value.size();
  }
  if (iequals(name, "transfer-encoding")) return false;
  if (iequals(name, "content-type")) out.content_type = value;
  return true;
}

}  // namespace

HeadStatus parse_reply_head(std::string_view in, ReplyHead& out) {
  const std::size_t end = in.find("\r\n\r\n");
  if (end == std::string_view::npos) return in.size() > kMaxHead ? HeadStatus::error : HeadStatus::need_more;
  out = ReplyHead();
  out.head_size = end + 4;
  std::string_view rest = in.substr(0, end + 2);
  std::size_t eol = rest.find("\r\n");
  if (!parse_status_line(rest.substr(0, eol), out.status)) return HeadStatus::error;
  rest.remove_prefix(eol + 2);
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    if (!take_header(rest.substr(0, eol), out)) return HeadStatus::error;
    rest.remove_prefix(eol + 2);
  }
  return HeadStatus::ok;
}

std::string_view header_value(std::string_view head, std::string_view name) {
  std::size_t eol = head.find("\r\n");
  while (eol != std::string_view::npos && eol + 2 < head.size()) {
    head.remove_prefix(eol + 2);
    eol = head.find("\r\n");
    const std::string_view line = head.substr(0, eol);
    if (line.size() <= name.size() || line[name.size()] != ':' || !iequals(line.substr(0, name.size()), name)) continue;
    std::string_view value = line.substr(name.size() + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    return value;
  }
  return {};
}

}  // namespace sluice::bench
