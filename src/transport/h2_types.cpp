#include "transport/h2_types.hpp"

namespace sluice::transport {

std::string_view H2Request::header(std::string_view name) const {
  for (const H2Header& h : headers) {
    if (h.name == name) return h.value;
  }
  return {};
}

}  // namespace sluice::transport
