// Semihosting calls: r0 holds the operation, r1 a pointer to its argument
// block, `bkpt 0xAB` traps to the host, r0 returns the result.
#include "semihosting.hpp"

#include <cstdint>
#include <cstring>

namespace sluice::board::semihosting {

namespace {

enum Op : std::uintptr_t {
  kOpen = 0x01,
  kWrite = 0x05,
  kClock = 0x10,
  kGetCmdline = 0x15,
  kExitExtended = 0x20,
};
constexpr std::uintptr_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit

std::intptr_t call(std::uintptr_t op, const void* args) {
  register std::uintptr_t r0 asm("r0") = op;
  register const void* r1 asm("r1") = args;
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return static_cast<std::intptr_t>(r0);
}

int handles[3] = {-1, -1, -1};

}  // namespace

int console(int fd) {
  if (fd < 1 || fd > 2) return -1;
  if (handles[fd] < 0) {
    // ":tt" is the console; open mode 4 ("w") names stdout, 8 ("a") stderr.
    static const char kName[] = ":tt";
    const std::uintptr_t args[3] = {reinterpret_cast<std::uintptr_t>(kName), fd == 1 ? 4u : 8u, 3};
    handles[fd] = static_cast<int>(call(kOpen, args));
  }
  return handles[fd];
}

std::size_t write(int handle, const char* bytes, std::size_t n) {
  const std::uintptr_t args[3] = {static_cast<std::uintptr_t>(handle), reinterpret_cast<std::uintptr_t>(bytes), n};
  const std::intptr_t not_written = call(kWrite, args);  // the host answers with what it did NOT write
  return not_written < 0 ? 0 : n - static_cast<std::size_t>(not_written);
}

int command_line(char* out, std::size_t capacity) {
  std::uintptr_t args[2] = {reinterpret_cast<std::uintptr_t>(out), capacity};
  if (call(kGetCmdline, args) != 0) return -1;
  return static_cast<int>(args[1]);
}

long clock_centiseconds() { return static_cast<long>(call(kClock, nullptr)); }

void exit(int status) {
  const std::uintptr_t args[2] = {kApplicationExit, static_cast<std::uintptr_t>(status)};
  call(kExitExtended, args);
  for (;;) {
  }
}

}  // namespace sluice::board::semihosting
