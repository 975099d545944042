// The authorizer's vocabulary (sluice/authorization.hpp): header lookup and
// the refusal a client may be shown.
#include "sluice/authorization.hpp"

#include <algorithm>
#include <string>

namespace sluice::server {

namespace {

// Field names are tokens: ASCII, compared without case.
bool same_name(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::ranges::equal(a, b, [&](char x, char y) { return lower(x) == lower(y); });
}

// What the application says goes out as a reply body, a header value, a
// close reason and a JSON string: printable ASCII alone cannot break any of
// them (no CR or LF to start a header of its own), nor split a character
// when a close reason is cut to fit its frame.
std::string one_line(std::string_view text, std::size_t max = AuthDecision::kMaxReason) {
  text = text.substr(0, max);
  std::string line(text.size(), '?');
  std::ranges::transform(text, line.begin(), [](char c) { return c >= 0x20 && c < 0x7f ? c : '?'; });
  return line;
}

}  // namespace

std::string_view Headers::get(std::string_view name) const {
  for (const HeaderField& field : fields_) {
    if (same_name(field.name, name)) return field.value;
  }
  return {};
}

AuthDecision AuthDecision::deny(int status, std::string_view reason, std::uint32_t retry_after_s) {
  AuthDecision d;
  // Only the refusals a client can act on: anything else would let the
  // application answer "200" and have it read as a refusal, or a 3xx as a
  // redirect.
  d.status_ = status == 401 || status == 429 || status == 503 ? status : 403;
  d.retry_after_ = d.status_ == 429 || d.status_ == 503 ? retry_after_s : 0;
  d.reason_ = one_line(reason);
  return d;
}

AuthDecision AuthDecision::later() {
  AuthDecision d;
  d.status_ = kLater;
  return d;
}

AuthDecision& AuthDecision::with_challenge(std::string_view challenge) {
  if (status_ == 401) challenge_ = one_line(challenge, kMaxChallenge);
  return *this;
}

AuthDecision& AuthDecision::until(std::chrono::system_clock::time_point when) {
  if (status_ == 0) expires_ = when;
  return *this;
}

}  // namespace sluice::server
