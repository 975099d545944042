#include "auth/decision.hpp"

#include <algorithm>
#include <utility>

namespace sluice::auth {

namespace {

// RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E.
void append_quoted(std::string_view text, std::string& out) {
  out += '"';
  for (const char c : text) {
    const bool printable = c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
    out += printable ? c : '?';
  }
  out += '"';
}

}  // namespace

Decision Decision::missing_token(std::string reason) { return {Verdict::unauthenticated, std::move(reason), 0, false}; }

Decision Decision::invalid_token(std::string reason) { return {Verdict::unauthenticated, std::move(reason), 0, true}; }

Decision Decision::forbid(std::string reason) { return {Verdict::forbidden, std::move(reason), 0, false}; }

Decision Decision::over_limit(std::string reason, std::uint32_t retry_after_s) {
  return {Verdict::too_many, std::move(reason), std::max<std::uint32_t>(retry_after_s, 1), false};
}

Decision Decision::callback_failed(std::string reason, std::uint32_t retry_after_s) {
  return {Verdict::unavailable, std::move(reason), std::max<std::uint32_t>(retry_after_s, 1), false};
}

int http_status(Verdict verdict) {
  switch (verdict) {
    case Verdict::allow: return 200;
    case Verdict::unauthenticated: return 401;
    case Verdict::forbidden: return 403;
    case Verdict::too_many: return 429;
    case Verdict::unavailable: return 503;
  }
  return 500;
}

std::uint16_t ws_close_code(Verdict verdict) {
  switch (verdict) {
    case Verdict::allow: return 1000;
    case Verdict::unauthenticated: return 4401;
    case Verdict::forbidden: return 4403;
    case Verdict::too_many: return 4429;
    case Verdict::unavailable: return 1013;
  }
  return 1011;
}

std::string www_authenticate(const Decision& decision, std::string_view realm) {
  std::string out = "Bearer realm=";
  append_quoted(realm, out);
  if (decision.bad_token) {
    out += ", error=\"invalid_token\", error_description=";
    append_quoted(decision.reason, out);
  }
  return out;
}

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::allow: return "allow";
    case Verdict::unauthenticated: return "unauthenticated";
    case Verdict::forbidden: return "forbidden";
    case Verdict::too_many: return "too_many";
    case Verdict::unavailable: return "unavailable";
  }
  return "?";
}

}  // namespace sluice::auth
