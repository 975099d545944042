#include "proto/url.hpp"

namespace sluice::proto::url {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The byte that `in` (starting at a '%') encodes, or -1 when it is malformed.
int decode_escape(std::string_view in) {
  if (in.size() < 3) return -1;
  const int high = hex_value(in[1]);
  const int low = hex_value(in[2]);
  return (high < 0 || low < 0) ? -1 : high * 16 + low;
}

// "." and "..", each dot possibly spelt %2e: what a decoder would turn into
// a dot segment.
bool is_dot_segment(std::string_view segment) {
  std::size_t dots = 0;
  while (!segment.empty()) {
    if (segment.front() == '.') {
      segment.remove_prefix(1);
    } else if (segment.size() >= 3 && segment.substr(0, 2) == "%2" &&
               (segment[2] == 'e' || segment[2] == 'E')) {
      segment.remove_prefix(3);
    } else {
      return false;
    }
    ++dots;
  }
  return dots == 1 || dots == 2;
}

}  // namespace

long percent_decode(std::string_view in, char* out, std::size_t out_cap, bool plus_as_space) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < in.size(); ++i, ++n) {
    if (n == out_cap) return -1;
    char c = in[i];
    if (c == '%') {
      const int byte = decode_escape(in.substr(i));
      if (byte < 0) return -1;
      c = static_cast<char>(byte);
      i += 2;
    } else if (c == '+' && plus_as_space) {
      c = ' ';
    }
    out[n] = c;
  }
  return static_cast<long>(n);
}

bool QueryIterator::next(std::string_view& raw_key, std::string_view& raw_value) {
  while (!rest_.empty()) {
    const std::size_t amp = rest_.find('&');
    const std::string_view pair = rest_.substr(0, amp);
    rest_ = amp == std::string_view::npos ? std::string_view() : rest_.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    raw_key = pair.substr(0, eq);
    raw_value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    return true;
  }
  return false;
}

PathIterator::PathIterator(std::string_view path) {
  if (path.empty() || path.front() != '/') {
    failed_ = true;
  } else {
    rest_ = path.substr(1);
  }
}

bool PathIterator::next(std::string_view& raw_segment) {
  if (failed_ || rest_.empty()) return false;
  const std::size_t slash = rest_.find('/');
  const std::string_view segment = rest_.substr(0, slash);
  rest_ = slash == std::string_view::npos ? std::string_view() : rest_.substr(slash + 1);
  if (segment.empty() || is_dot_segment(segment)) {
    failed_ = true;
    return false;
  }
  raw_segment = segment;
  return true;
}

}  // namespace sluice::proto::url
