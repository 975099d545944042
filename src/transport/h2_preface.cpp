#include "transport/h2_preface.hpp"

#include <algorithm>

namespace sluice::transport {

PrefaceMatch match_h2_preface(std::string_view first_bytes) {
  const std::size_t n = std::min(first_bytes.size(), kH2Preface.size());
  if (first_bytes.substr(0, n) != kH2Preface.substr(0, n)) return PrefaceMatch::http1;
  return n == kH2Preface.size() ? PrefaceMatch::h2 : PrefaceMatch::need_more;
}

}  // namespace sluice::transport
