// Owns: small helpers for reading a request's target: query values and
// percent-decoding into a caller's buffer.
#pragma once

#include <cstddef>
#include <string_view>

#include "proto/url.hpp"

namespace sluice::session {

inline std::string_view query_value(std::string_view query, std::string_view wanted) {
  proto::url::QueryIterator it(query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key == wanted) return value;
  }
  return {};
}

// Percent-decodes `raw` into `out`; empty on malformed input or overflow.
inline std::string_view decode_into(std::string_view raw, char* out, std::size_t capacity) {
  const long n = proto::url::percent_decode(raw, out, capacity, true);
  return n < 0 ? std::string_view() : std::string_view(out, static_cast<std::size_t>(n));
}

}  // namespace sluice::session
