// Owns: TopicPatterns, a compiled list of the topic patterns a token or the
// config grants ("news", "prices.*", "*"), and the one question asked of it
// on every subscribe and publish: does this topic match?
//
// A pattern is a topic name (matches only itself), a topic name followed by
// ".*" (matches every topic that starts with that name and a dot, at any
// depth: "prices.*" matches "prices.eur" and "prices.eur.spot" but not
// "prices" or "pricesx"), or "*" alone (every client topic). No other use of
// '*' is accepted, so a pattern never means more than it looks like. The
// server's own topics ("$sys", "$metrics": the operator's figures) match
// only a pattern that names them exactly.
//
// The patterns are kept back to back in one string with an index beside it,
// so matching walks one contiguous array and allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::auth {

class TopicPatterns {
 public:
  // Appends `pattern`. False, changing nothing, when it is not a valid
  // pattern: its topic part must be 1..max_name characters of
  // [A-Za-z0-9_.:-].
  [[nodiscard]] bool add(std::string_view pattern, std::size_t max_name);

  // True when some pattern matches `topic`. O(patterns); never allocates.
  [[nodiscard]] bool matches(std::string_view topic) const noexcept;

  [[nodiscard]] std::size_t size() const { return entries_.size() + (any_ ? 1 : 0); }
  [[nodiscard]] bool empty() const { return size() == 0; }

  // Builds the list a config key holds, refusing more than `max_patterns`
  // entries. Returns one line naming `key` and the offending pattern, or
  // nullopt.
  [[nodiscard]] static std::optional<std::string> from_config(std::span<const std::string> patterns,
                                                              std::string_view key, std::size_t max_patterns,
                                                              std::size_t max_name, TopicPatterns& out);

 private:
  struct Entry {
    std::uint32_t offset;  // into text_
    std::uint32_t length;  // a prefix keeps its trailing '.'
    bool prefix;
  };

  std::string text_;
  std::vector<Entry> entries_;
  bool any_ = false;
};

}  // namespace sluice::auth
