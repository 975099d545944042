// Owns: reading how much CPU a server under test has used, so that a
// scenario can report CPU time per delivered event next to events/s. On a
// shared machine the throughput of a run moves with whatever else runs;
// the CPU a server spends per event moves far less, so it is the fairer
// ratio between two servers measured one after the other.
#pragma once

#include <sys/types.h>

namespace sluice::bench {

// User plus system CPU seconds of process `pid` and all its threads so far
// (/proc/PID/stat); negative when it cannot be read.
[[nodiscard]] double process_cpu_seconds(pid_t pid);

}  // namespace sluice::bench
