#include "hub/publish_clock.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace sluice::hub {

namespace {

bool ask_the_processor() {
#if defined(__x86_64__) || defined(__i386__)
  // Leaf 0x80000007, EDX bit 8: the counter runs at a constant rate in
  // every power state (Linux's "constant_tsc" and "nonstop_tsc").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1U << 8)) != 0;
#else
  return false;
#endif
}

}  // namespace

bool time_stamp_counter_invariant() {
  static const bool invariant = ask_the_processor();
  return invariant;
}

}  // namespace sluice::hub
