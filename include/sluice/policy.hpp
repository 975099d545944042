// Owns: Policy, what happens to a subscriber whose send budget is spent
// (the server configures it per topic; a client may ask for one of those
// the server allows):
//
//   fifo         nothing is lost; past the budget the subscriber is cut off
//                and resumes by id, missing nothing
//   drop_oldest  the oldest events not yet on the wire make room
//   drop_newest  the new event is dropped
//   latest       a pending event of the same topic and key that the last
//                write could not take is replaced by the new one (a
//                dashboard wants the newest value, not the history); a
//                reader with room gets every event; past the budget,
//                drop_oldest
//   disconnect   past the budget, the subscriber is closed at once
//
// Every event dropped or replaced is counted and told to the client.
#pragma once

#include <cstdint>

namespace sluice {

enum class Policy : std::uint8_t { fifo, drop_oldest, drop_newest, latest, disconnect };
inline constexpr int kPolicyCount = 5;

}  // namespace sluice
