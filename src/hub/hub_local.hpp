// Owns: Hub::Local, what one loop keeps per topic it follows: its
// subscribers (each with the first event it is owed live), how far the loop
// has delivered, and the record's resets it has acted on. Shared by the
// hub's files; nothing outside the hub sees it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "hub/hub.hpp"

namespace sluice::hub {

// A subscriber's first_seq while it waits for events fetched elsewhere
// (Hub::attach): no live event is ever owed to it.
inline constexpr std::uint64_t kParked = std::numeric_limits<std::uint64_t>::max();

struct Hub::Local {
  struct Entry {
    Subscriber* subscriber;
    std::uint32_t cookie;
    std::uint64_t first_seq;  // the first event this subscriber is owed live
    WireForm form;
    bool awaiting = false;    // to be told Subscriber::placed()
  };
  explicit Local(TopicRecord* r) : record(r) {}
  [[nodiscard]] bool followed() const {
    return std::any_of(subscribers.begin(), subscribers.end(), [](const Entry& e) { return e.subscriber != nullptr; });
  }

  TopicRecord* record;
  std::uint64_t delivered = 0;  // the last seq this loop handed over
  std::uint64_t resets = 0;     // the record's resets this loop has acted on
  std::uint32_t stall_cuts = 0;  // the record's stall_cuts this loop has acted on
  std::vector<Entry> subscribers;
  bool delivering = false;
  bool has_holes = false;  // unsubscribed during a delivery: compact after it
  bool has_awaiting = false;  // an entry is awaiting
};

}  // namespace sluice::hub
