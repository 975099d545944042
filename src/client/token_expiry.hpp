// Owns: token_expiry(), when a bearer token the client was given stops
// being valid, read from its JWT "exp" claim, so that a /ws connection can
// present a new one before the server closes it (4401). The client does not
// verify the token (the server does); it only reads the time. A token that
// is not a JWT, or names no "exp", has no known expiry and is never
// refreshed ahead of time.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice::client::detail {

// Seconds since the epoch, or nothing.
[[nodiscard]] std::optional<std::int64_t> token_expiry(std::string_view token);

}  // namespace sluice::client::detail
