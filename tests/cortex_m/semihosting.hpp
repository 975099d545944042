// Owns: the few Arm semihosting calls the test firmware needs, made with
// `bkpt 0xAB` and answered by the debugger or, here, by QEMU
// (-semihosting-config enable=on): write to the host's stdout/stderr, read
// the command line QEMU was given, read the clock, and end the run with an exit status.
#pragma once

#include <cstddef>

namespace sluice::board::semihosting {

// Handle of the host console, opened on first use: 1 for stdout, 2 for
// stderr. Returns -1 when the host refuses.
int console(int fd);

// Writes `n` bytes to a handle from console(); returns the bytes written.
std::size_t write(int handle, const char* bytes, std::size_t n);

// Copies the command line (program name and arguments, separated by
// spaces) into `out`, NUL-terminated; returns its length, or -1.
int command_line(char* out, std::size_t capacity);

// Centiseconds since the firmware started, or -1 (SYS_CLOCK).
long clock_centiseconds();

// Ends the emulation with `status` as QEMU's exit status
// (SYS_EXIT_EXTENDED, reason ADP_Stopped_ApplicationExit).
[[noreturn]] void exit(int status);

}  // namespace sluice::board::semihosting
