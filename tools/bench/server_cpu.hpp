// Owns: reading what a server under test has used, so that a scenario can
// report CPU time per delivered event next to events/s, and its memory. On
// a shared machine the throughput of a run moves with whatever else runs;
// the CPU a server spends per event moves far less, so it is the fairer
// ratio between two servers measured one after the other. A server may be
// a process tree (nginx: a master and its worker, started from a script),
// so both figures add up the process and its live descendants.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace sluice::bench {

// User plus system CPU seconds of process `pid`, its threads and its live
// descendants so far (/proc/PID/stat); negative when `pid` cannot be read.
[[nodiscard]] double process_cpu_seconds(pid_t pid);

// Resident memory (VmRSS in /proc/PID/status) of `pid` and its live
// descendants, in bytes; negative when `pid` cannot be read.
[[nodiscard]] std::int64_t process_rss_bytes(pid_t pid);

}  // namespace sluice::bench
