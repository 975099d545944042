#include "proto/topic_name.hpp"

#include <algorithm>

namespace sluice::proto {

bool valid_topic_name(std::string_view name, std::size_t max_length) {
  if (name.empty() || name.size() > max_length) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '-';
  });
}

}  // namespace sluice::proto
