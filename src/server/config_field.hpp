// Owns: field<Path...>(config), one Config field named by the chain of
// members that leads to it (&Config::http, &HttpLimits::max_body), so a
// table of keys can say which field each key sets or copies.
#pragma once

namespace sluice::server {

template <auto First, auto... Rest>
constexpr auto& field(auto& object) {
  if constexpr (sizeof...(Rest) == 0) {
    return object.*First;
  } else {
    return field<Rest...>(object.*First);
  }
}

}  // namespace sluice::server
