#include "server/hook_decision.hpp"

#include <string_view>

namespace sluice::server {

namespace {

constexpr std::string_view kRealm = "sluice";

}  // namespace

AuthDecision to_hook(const auth::Decision& d) {
  if (d.allowed()) return AuthDecision::allow();
  AuthDecision out = AuthDecision::deny(auth::http_status(d.verdict), d.reason, d.retry_after_s);
  if (d.verdict == auth::Verdict::unauthenticated) out.with_challenge(auth::www_authenticate(d, kRealm));
  return out;
}

}  // namespace sluice::server
