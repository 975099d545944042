#include "feed_all_splits.hpp"

namespace sluice::test {

void for_each_split(std::string_view input, const std::function<void(const Chunks&)>& check,
                    std::size_t three_way_limit) {
  check({input});
  for (std::size_t i = 1; i < input.size(); ++i) {
    check({input.substr(0, i), input.substr(i)});
  }
  if (input.size() <= three_way_limit) {
    for (std::size_t i = 1; i < input.size(); ++i) {
      for (std::size_t j = i + 1; j < input.size(); ++j) {
        check({input.substr(0, i), input.substr(i, j - i), input.substr(j)});
      }
    }
  }
  Chunks bytes;
  bytes.reserve(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) bytes.push_back(input.substr(i, 1));
  check(bytes);
}

}  // namespace sluice::test
