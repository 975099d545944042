// Owns: CallbackCache, the authorization callback's recent answers, kept
// auth.callback_cache_ms and at most auth.callback_cache_entries of them.
//
// A question is identified by a 128-bit keyed hash (two SipHash keys) of
// everything the callback is sent (action, topic, client address, the
// forwarded headers and cookies), so an entry costs a few dozen bytes
// whatever the cookies weigh, and a client cannot steer its question onto
// another's answer. Every entry lives the same time, so the oldest entry is
// also the first to expire: one queue in insertion order serves both to
// drop expired answers and, when the cache is full, the oldest live one.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "auth/decision.hpp"
#include "auth/siphash.hpp"

namespace sluice::auth {

class CallbackCache {
 public:
  using Clock = std::chrono::steady_clock;

  struct Key {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };

  // `ttl` 0 or `max_entries` 0 keep nothing.
  CallbackCache(std::size_t max_entries, std::chrono::milliseconds ttl, SipKey first = random_sip_key(),
                SipKey second = random_sip_key());

  [[nodiscard]] Key key_of(std::string_view question) const;

  // The answer stored for `key` less than ttl ago, or null.
  [[nodiscard]] const Decision* find(const Key& key, Clock::time_point now) const;

  // Keeps `decision` for ttl from `now`, dropping expired answers first and
  // then, if still full, the oldest. Storing a key already held replaces the
  // answer and keeps its expiry.
  void store(const Key& key, const Decision& decision, Clock::time_point now);

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool enabled() const { return ttl_.count() > 0 && max_entries_ > 0; }

 private:
  struct KeyHash {
    std::size_t operator()(const Key& key) const { return static_cast<std::size_t>(key.a); }
  };
  struct Entry {
    Decision decision;
    Clock::time_point expires;
  };

  void drop_front();

  std::size_t max_entries_;
  std::chrono::milliseconds ttl_;
  SipKey first_;
  SipKey second_;
  std::unordered_map<Key, Entry, KeyHash> entries_;
  std::deque<Key> order_;  // insertion order, one per entry
};

}  // namespace sluice::auth
