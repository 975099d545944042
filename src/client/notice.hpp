// Owns: how the server's in-band notices (events dropped under a policy, a
// resume that could not be honoured) become Events of their own kind.
#pragma once

#include <string_view>

#include "server_messages.hpp"
#include "sluice/client/event.hpp"

namespace sluice::client::detail {

inline constexpr std::string_view kDroppedEventName = "sluice-dropped";
inline constexpr std::string_view kResetEventName = "sluice-reset";

// The kind of an SSE event by its name.
[[nodiscard]] EventKind kind_of_sse_event(std::string_view type);

// Completes an SSE dropped or reset notice whose `data` holds the server's
// JSON: its topic (kept when the JSON names none) and dropped count; the id
// is cleared, the notice belongs to no event.
void read_notice(ServerMessages& reader, Event& event);

}  // namespace sluice::client::detail
