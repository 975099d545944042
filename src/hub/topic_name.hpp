// Owns: the rule for what a topic name may be. Names appear in URL paths,
// config patterns and logs, so they are kept to a safe alphabet.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice::hub {

// 1..max_length characters from [A-Za-z0-9_.:-].
[[nodiscard]] bool valid_topic_name(std::string_view name, std::size_t max_length);

}  // namespace sluice::hub
