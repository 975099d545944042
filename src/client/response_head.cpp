#include "response_head.hpp"

#include <algorithm>
#include <charconv>

namespace sluice::client::detail {

namespace {

constexpr std::string_view kHttp = "HTTP/";

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return lower(x) == lower(y);
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "HTTP/1.1 200 OK": a version, a three-digit status, an optional reason.
bool parse_status_line(std::string_view line, int& status) {
  if (line.size() < 12 || !line.starts_with(kHttp) || line[8] != ' ') return false;
  if (line.size() > 12 && line[12] != ' ') return false;
  const auto [end, ec] = std::from_chars(line.data() + 9, line.data() + 12, status);
  return ec == std::errc() && end == line.data() + 12 && status >= 100 && status <= 999;
}

void keep_field(std::string_view name, std::string_view value, ResponseHead& out) {
  struct Wanted {
    std::string_view name;
    std::string_view ResponseHead::*field;
  };
  static constexpr Wanted kWanted[] = {
      {"content-type", &ResponseHead::content_type},   {"content-length", &ResponseHead::content_length},
      {"transfer-encoding", &ResponseHead::transfer_encoding}, {"retry-after", &ResponseHead::retry_after},
      {"upgrade", &ResponseHead::upgrade},             {"connection", &ResponseHead::connection},
      {"sec-websocket-accept", &ResponseHead::websocket_accept},
  };
  for (const Wanted& w : kWanted) {
    if (iequals(name, w.name)) out.*w.field = value;
  }
}

bool parse_field_line(std::string_view line, ResponseHead& out) {
  const auto colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  const std::string_view name = line.substr(0, colon);
  if (name.find_first_of(" \t") != std::string_view::npos) return false;
  keep_field(name, trim(line.substr(colon + 1)), out);
  return true;
}

}  // namespace

HeadStatus parse_response_head(std::string_view bytes, std::size_t max_size, ResponseHead& out) {
  const std::size_t prefix = std::min(bytes.size(), kHttp.size());
  if (bytes.substr(0, prefix) != kHttp.substr(0, prefix)) return HeadStatus::not_http;
  out = ResponseHead{};
  std::size_t at = 0;
  for (bool first = true; at < bytes.size() && at <= max_size; first = false) {
    const auto lf = bytes.find('\n', at);
    if (lf == std::string_view::npos || lf > max_size) break;
    std::string_view line = bytes.substr(at, lf - at);
    if (line.ends_with('\r')) line.remove_suffix(1);
    at = lf + 1;
    if (line.empty() && !first) {
      out.size = at;
      return HeadStatus::complete;
    }
    const bool ok = first ? parse_status_line(line, out.status) : parse_field_line(line, out);
    if (!ok) return HeadStatus::malformed;
  }
  return bytes.size() > max_size ? HeadStatus::too_long : HeadStatus::need_more;
}

bool media_type_is(std::string_view content_type, std::string_view wanted) {
  return iequals(trim(content_type.substr(0, content_type.find(';'))), wanted);
}

bool list_has_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (iequals(trim(list.substr(0, comma)), token)) return true;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

std::chrono::milliseconds retry_after_delay(std::string_view value) {
  unsigned seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) return std::chrono::milliseconds(0);
  return std::chrono::seconds(std::min(seconds, 3600u));
}

const char* head_status_text(HeadStatus status) {
  switch (status) {
    case HeadStatus::not_http: return "the server does not speak HTTP";
    case HeadStatus::too_long: return "the response head is too long";
    case HeadStatus::malformed: return "the response head is malformed";
    default: return "the response head is incomplete";
  }
}

}  // namespace sluice::client::detail
