// Owns: LoopCounters, what one loop counts as it serves (the list is
// server::Counters, declared once in the public header); any thread may
// read them while the loop runs, and Server::stats adds every loop's up.
#pragma once

#include <atomic>
#include <cstdint>

#include "sluice/stats.hpp"

namespace sluice::session {

using LoopCounters = server::Counters<std::atomic<std::uint64_t>>;

}  // namespace sluice::session
