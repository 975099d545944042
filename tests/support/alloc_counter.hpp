// Owns: a count of heap allocations made through operator new and malloc's
// C++ path, for tests that prove a hot path allocates nothing. Linking this
// file replaces the global operator new of the test binary.
#pragma once

#include <cstdint>

namespace sluice::test {

// Allocations made by any thread since the program started.
[[nodiscard]] std::uint64_t allocations();

}  // namespace sluice::test
