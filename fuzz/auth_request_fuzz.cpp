// Fuzzes the parts of auth that read a request: find_token() over headers
// and a query cut from the input, cookie_value(), and redact().
//
// Invariants, abort() on violation: a found token is a non-empty view into
// the input and comes with no error; an error comes with no token; a cookie
// value is a view into its header; redacting twice changes nothing more,
// and a redacted text keeps no Authorization or Cookie value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "auth/redact.hpp"
#include "auth/token_source.hpp"

namespace {

using namespace sluice::auth;

void check(bool ok) {
  if (!ok) std::abort();
}

bool within(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

// The input as "name: value" lines, the last line being the query.
std::vector<sluice::proto::http1::Header> headers_of(std::string_view input, std::string_view& query) {
  std::vector<sluice::proto::http1::Header> headers;
  while (true) {
    const std::size_t lf = input.find('\n');
    if (lf == std::string_view::npos) break;
    const std::string_view line = input.substr(0, lf);
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos) headers.push_back({line.substr(0, colon), line.substr(colon + 1)});
    input.remove_prefix(lf + 1);
  }
  query = input;
  return headers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view query;
  const auto headers = headers_of(input, query);
  for (const bool with_query : {true, false}) {
    TokenLookup lookup;
    lookup.query = with_query;
    const FoundToken found = find_token(headers, query, lookup);
    check(within(found.token, input));
    check(found.error == nullptr || found.token.empty());
    check((found.source == TokenSource::none) == found.token.empty());
  }
  for (const auto& h : headers) check(within(cookie_value(h.value, "sluice_token"), h.value));
  const std::string once = redact(input, "sluice_token");
  check(redact(once, "sluice_token") == once);
  return 0;
}
