#include "auth/topic_patterns.hpp"

#include "proto/topic_name.hpp"

namespace sluice::auth {

bool TopicPatterns::add(std::string_view pattern, std::size_t max_name) {
  if (pattern == "*") {
    any_ = true;
    return true;
  }
  // A server topic ("$sys") is granted only by its exact name.
  if (pattern.starts_with(proto::kServerTopicMark)) {
    if (!proto::valid_topic_name(pattern.substr(1), max_name)) return false;
    entries_.push_back({static_cast<std::uint32_t>(text_.size()), static_cast<std::uint32_t>(pattern.size()), false});
    text_ += pattern;
    return true;
  }
  const bool prefix = pattern.size() > 2 && pattern.ends_with(".*");
  // The name part keeps no '*': "a*", "*.b" and "a.*.c" are refused here.
  const std::string_view name = prefix ? pattern.substr(0, pattern.size() - 2) : pattern;
  if (!proto::valid_topic_name(name, max_name)) return false;
  const std::string_view kept = prefix ? pattern.substr(0, pattern.size() - 1) : pattern;  // "prices."
  entries_.push_back({static_cast<std::uint32_t>(text_.size()), static_cast<std::uint32_t>(kept.size()), prefix});
  text_ += kept;
  return true;
}

bool TopicPatterns::matches(std::string_view topic) const noexcept {
  // "*" means every client topic; the server's own are named one by one.
  if (any_ && !topic.starts_with(proto::kServerTopicMark)) return true;
  const std::string_view text = text_;
  for (const Entry& e : entries_) {
    const std::string_view kept = text.substr(e.offset, e.length);
    if (e.prefix ? topic.size() > kept.size() && topic.starts_with(kept) : topic == kept) return true;
  }
  return false;
}

std::optional<std::string> TopicPatterns::from_config(std::span<const std::string> patterns, std::string_view key,
                                                      std::size_t max_patterns, std::size_t max_name,
                                                      TopicPatterns& out) {
  out = TopicPatterns{};
  if (patterns.size() > max_patterns) {
    return "config key '" + std::string(key) + "' lists " + std::to_string(patterns.size()) +
           " patterns, more than auth.max_patterns (" + std::to_string(max_patterns) + ")";
  }
  for (const std::string& pattern : patterns) {
    if (!out.add(pattern, max_name)) {
      return "config key '" + std::string(key) + "': '" + pattern +
             "' is not a topic name, a 'prefix.*' or '*' (names are 1.." + std::to_string(max_name) +
             " characters of A-Z a-z 0-9 _ . : -)";
    }
  }
  return std::nullopt;
}

}  // namespace sluice::auth
