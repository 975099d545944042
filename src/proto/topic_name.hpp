// Owns: the rule for what a topic name may be, shared by the server and
// the client. Names appear in URL paths, config patterns and logs, so they
// are kept to a safe alphabet.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice::proto {

// The longest name any server accepts (the top of `topics.max_name`'s
// range). A server's own limit may be lower; the client checks against
// this ceiling and leaves the configured limit to the server's answer.
inline constexpr std::size_t kTopicNameCeiling = 1024;

// 1..max_length characters from [A-Za-z0-9_.:-].
// The first character of the server's own topic names ("$sys"): outside
// the alphabet, so no client name can be one, and no pattern that grants
// client topics ("*", "prices.*") covers one.
inline constexpr char kServerTopicMark = '$';

[[nodiscard]] bool valid_topic_name(std::string_view name, std::size_t max_length);

}  // namespace sluice::proto
