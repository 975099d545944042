// Owns: the one line that says why an OpenSSL call failed, taken from
// OpenSSL's per-thread error queue (which it empties, so that an old error
// is never blamed on a later call).
#pragma once

#include <string>
#include <string_view>

namespace sluice::transport {

// "what: reason (detail)" for the oldest error queued on this thread, or
// "what: `fallback`" when the queue is empty. Clears the queue.
[[nodiscard]] std::string take_openssl_error(std::string_view what, std::string_view fallback = "failed");

}  // namespace sluice::transport
