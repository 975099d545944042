// Owns: to_hook(), an auth::Decision (what the token library or the
// authorization callback decided) in the form the server's authorization
// hook answers with: the refusal's HTTP status, its reason and Retry-After,
// and for a client that must authenticate, the Bearer challenge of realm
// "sluice".
#pragma once

#include "auth/decision.hpp"
#include "sluice/authorization.hpp"

namespace sluice::server {

[[nodiscard]] AuthDecision to_hook(const auth::Decision& d);

}  // namespace sluice::server
