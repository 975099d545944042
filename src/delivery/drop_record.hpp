// Owns: DropRecord, the events one subscriber lost on one topic since it
// was last told: how many, and the range of their ids.
#pragma once

#include <algorithm>
#include <cstdint>

namespace sluice::delivery {

struct DropRecord {
  std::uint64_t count = 0;
  std::uint64_t first_id = 0;  // lowest id lost
  std::uint64_t last_id = 0;   // highest id lost

  void add(std::uint64_t id) { add_range(id, id); }
  void add_range(std::uint64_t first, std::uint64_t last) {
    first_id = count == 0 ? first : std::min(first_id, first);
    last_id = count == 0 ? last : std::max(last_id, last);
    count += last - first + 1;
  }
  void merge(const DropRecord& other) {
    if (other.empty()) return;
    first_id = empty() ? other.first_id : std::min(first_id, other.first_id);
    last_id = empty() ? other.last_id : std::max(last_id, other.last_id);
    count += other.count;
  }
  [[nodiscard]] bool empty() const { return count == 0; }
};

}  // namespace sluice::delivery
