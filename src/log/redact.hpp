// Owns: what never reaches a log line in the clear: credentials in
// headers and in query strings, and anything shaped like a JWT in any
// field (LineWriter cuts those out of every value it writes).
//
// Headers are judged by name (Authorization, Cookie and their kin, and
// Sec-WebSocket-Protocol, where browsers that cannot set headers put
// tokens). A request target keeps its path and its parameter names, and the
// values of only the parameters sluice itself defines (topic, event, key,
// policy, lastEventId), none of which is a secret; every other value
// becomes "[redacted]", and so does a bare parameter (no '=') not on that list. A token under a name sluice has never heard of is
// still kept out: the list says what may be shown, not what must be hidden.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace sluice::log {

inline constexpr std::string_view kRedacted = "[redacted]";

// True for a header whose value is or may carry a credential (the name is
// compared without regard to case).
[[nodiscard]] bool is_secret_header(std::string_view name);

// `value`, or "[redacted]" when the header is secret.
[[nodiscard]] std::string_view loggable_header(std::string_view name, std::string_view value);

// The length of a run shaped like a JWT at `at` of `text` ("eyJ" at a word's
// start, then base64url runs with two or more dots between them), or 0.
// Such a run is a credential wherever it appears: a user agent, a path, an
// event's name, a header whose name says nothing of it.
[[nodiscard]] std::size_t jwt_shape_length(std::string_view text, std::size_t at);

// Writes `target` into `out` with every query value that is not on the list
// above replaced by "[redacted]"; a fragment, should one be sent, is dropped.
// `out` must hold at least 3 bytes.
// Returns what was written; when `out` is too small the result is cut at a
// parameter boundary and ends with "...".
[[nodiscard]] std::string_view redact_target(std::string_view target, std::span<char> out);

}  // namespace sluice::log
