#include "log/redact.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace sluice::log {

namespace {

constexpr std::array<std::string_view, 7> kSecretHeaders{
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
    "sec-websocket-protocol"};

// Query parameters sluice defines; their values are topic names, event
// names, conflation keys, policies and event ids.
constexpr std::array<std::string_view, 5> kShownParameters{"topic", "event", "key", "policy", "lastEventId"};

bool base64url_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
           return lower(x) == lower(y);
         });
}

class Appender {
 public:
  explicit Appender(std::span<char> out) : out_(out) {}

  // Appends `part` whole, or returns false leaving room for "...".
  bool add(std::string_view part) {
    if (used_ + part.size() + 3 > out_.size()) return false;
    add_raw(part);
    return true;
  }
  std::string_view cut() {
    if (used_ + 3 <= out_.size()) add_raw("...");
    return result();
  }
  [[nodiscard]] std::string_view result() const { return {out_.data(), used_}; }

 private:
  void add_raw(std::string_view part) {
    if (part.empty()) return;  // an empty view's data() may be null, which memcpy must not see
    std::memcpy(out_.data() + used_, part.data(), part.size());
    used_ += part.size();
  }

  std::span<char> out_;
  std::size_t used_ = 0;
};

}  // namespace

bool is_secret_header(std::string_view name) {
  return std::any_of(kSecretHeaders.begin(), kSecretHeaders.end(),
                     [&](std::string_view secret) { return equals_ignoring_case(name, secret); });
}

std::string_view loggable_header(std::string_view name, std::string_view value) {
  return is_secret_header(name) ? kRedacted : value;
}

// An escape (%HH) ends a word: a target is logged as sent, so "%20eyJ..."
// (Bearer%20<token>) or "%3DeyJ..." (token%3D<token>) starts a token.
bool after_escape(std::string_view text, std::size_t at) {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  return at >= 3 && text[at - 3] == '%' && hex(text[at - 2]) && hex(text[at - 1]);
}

std::size_t jwt_shape_length(std::string_view text, std::size_t at) {
  const bool word_start = at == 0 || !base64url_char(text[at - 1]) || after_escape(text, at);
  if (text.compare(at, 3, "eyJ") != 0 || !word_start) return 0;
  std::size_t end = at;
  int dots = 0;
  while (end < text.size() && (base64url_char(text[end]) || text[end] == '.')) dots += text[end++] == '.';
  return dots >= 2 ? end - at : 0;
}

std::string_view redact_target(std::string_view target, std::span<char> out) {
  target = target.substr(0, target.find('#'));
  const std::size_t query_at = target.find('?');
  Appender appender(out);
  if (!appender.add(target.substr(0, query_at))) return appender.cut();
  if (query_at == std::string_view::npos) return appender.result();
  std::string_view query = target.substr(query_at + 1);
  for (char separator = '?';; separator = '&') {
    const std::size_t end = query.find('&');
    const std::string_view pair = query.substr(0, end);
    const std::size_t eq = pair.find('=');
    const std::string_view name = pair.substr(0, eq);
    const bool shown =
        pair.empty() || std::find(kShownParameters.begin(), kShownParameters.end(), name) != kShownParameters.end();
    // A bare parameter (no '=') not on the list could be a token itself.
    const std::string_view kept = shown ? pair : eq == std::string_view::npos ? kRedacted : name;
    const std::string_view tail = shown || eq == std::string_view::npos ? "" : "=[redacted]";
    if (!appender.add({&separator, 1}) || !appender.add(kept) || !appender.add(tail)) return appender.cut();
    if (end == std::string_view::npos) break;
    query.remove_prefix(end + 1);
  }
  return appender.result();
}

}  // namespace sluice::log
