// Owns: for_each_split, which cuts an input at every point (and byte by byte)
// so that an incremental parser is shown each way bytes can arrive.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

namespace sluice::test {

using Chunks = std::vector<std::string_view>;

// Calls `check` once with the whole input as one chunk, once for every split
// into two chunks, once for every split into three chunks when the input is
// at most `three_way_limit` bytes, and once with one chunk per byte.
void for_each_split(std::string_view input, const std::function<void(const Chunks&)>& check,
                    std::size_t three_way_limit = 64);

}  // namespace sluice::test
