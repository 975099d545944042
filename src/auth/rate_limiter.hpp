// Owns: RateTable, a fixed-size table of token buckets, and RateLimiter,
// which keeps one per loop for connections, subscriptions and publishes,
// counted per client address and per token subject.
//
// A bucket is stored as one time (GCRA, the "virtual scheduling" form of a
// token bucket): the moment at which it would be full again. Taking a token
// moves that moment one interval (1 s / rate) later; a request is refused
// when the moment lies more than burst-1 intervals ahead, and the wait
// until it does not is the Retry-After. One 64-bit time per bucket, no
// timers, no refill pass.
//
// The table never grows. Keys are hashed (SipHash, random key) into sets of
// kWays entries. A new key takes an empty entry or one whose bucket is
// already full again (forgetting it loses nothing: a new bucket starts
// full); when every entry of its set is still refilling, the one nearest to
// full is forgotten and counted in evictions(). So a flood of new clients
// can at worst hand the clients it pushes out a fresh burst, and the table
// costs entries x 16 bytes whatever happens.
//
// Not thread-safe: each loop owns its limiter, and a limit is per loop.
// Nothing here allocates after construction.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "auth/decision.hpp"
#include "auth/peer_address.hpp"
#include "auth/siphash.hpp"

namespace sluice::auth {

struct RateRule {
  std::uint32_t per_second = 0;  // 0: no limit
  std::uint32_t burst = 1;       // tokens a full bucket holds
};

enum class RateKind : std::uint8_t { connect, subscribe, publish };
enum class RateScope : std::uint8_t { address, identity };

struct RateConfig {
  RateRule connect_per_address{50, 100};        // auth.rate.connect_per_ip, auth.rate.connect_per_ip_burst
  RateRule connect_per_identity{20, 40};        // auth.rate.connect_per_identity, ..._burst
  RateRule subscribe_per_address{200, 400};     // auth.rate.subscribe_per_ip, ..._burst
  RateRule subscribe_per_identity{100, 200};    // auth.rate.subscribe_per_identity, ..._burst
  RateRule publish_per_address{10000, 20000};   // auth.rate.publish_per_ip, ..._burst
  RateRule publish_per_identity{10000, 20000};  // auth.rate.publish_per_identity, ..._burst
  std::size_t table_entries = 65536;            // auth.rate.table_entries: buckets per loop

  [[nodiscard]] const RateRule& rule(RateKind kind, RateScope scope) const;
};

struct RateCheck {
  bool allowed = true;
  std::uint32_t retry_after_s = 0;  // when refused: whole seconds until a token is back, at least 1
  const char* limit = nullptr;      // when refused: the config key of the limit, static text
};

class RateTable {
 public:
  static constexpr std::size_t kWays = 8;
  using Clock = std::chrono::steady_clock;

  // `entries` is rounded up to a power of two, at least kWays.
  explicit RateTable(std::size_t entries);

  // Takes one token from the bucket of `key` (a hash, never 0) under `rule`.
  // Returns 0 when allowed, otherwise the nanoseconds until it would be.
  [[nodiscard]] std::int64_t take(std::uint64_t key, const RateRule& rule, Clock::time_point now) noexcept;

  [[nodiscard]] std::size_t capacity() const { return entries_.size(); }
  [[nodiscard]] std::uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    std::uint64_t key = 0;        // 0: empty
    std::int64_t full_at_ns = 0;  // when the bucket is full again
  };

  [[nodiscard]] Entry& slot(std::uint64_t key, std::int64_t now_ns) noexcept;

  std::vector<Entry> entries_;
  std::size_t set_mask_ = 0;
  std::uint64_t evictions_ = 0;
};

class RateLimiter {
 public:
  using Clock = RateTable::Clock;

  explicit RateLimiter(const RateConfig& config, SipKey key = random_sip_key());

  // Takes a token from the address's bucket, then (when `identity` is not
  // empty) from the identity's. The first refusal is the answer; a request
  // refused for its identity has still spent its address's token.
  [[nodiscard]] RateCheck check(RateKind kind, const PeerAddress& address, std::string_view identity,
                                Clock::time_point now) noexcept;
  // Takes a token from one bucket: the address's (`key` = address.view())
  // or the identity's. Allowed when `key` is empty. Lets a caller spend the
  // address's token before work that only the identity's needs (checking
  // a token's signature).
  [[nodiscard]] RateCheck check_one(RateKind kind, RateScope scope, std::string_view key,
                                    Clock::time_point now) noexcept;

  [[nodiscard]] const RateTable& table() const { return table_; }

  // New rates and bursts for every check from now on (a reload). The
  // buckets are kept: each is one time, judged by the rule in force when
  // it is next taken from, so a lowered rate binds a client's next request
  // and a raised one lets it in at once. `table_entries` is not changed
  // (the table is sized once).
  void set_rules(const RateConfig& config) noexcept;

 private:
  [[nodiscard]] std::uint64_t key_for(RateKind kind, RateScope scope, std::string_view bytes) const noexcept;

  RateConfig config_;
  SipKey key_;
  RateTable table_;
};

// 429 with Retry-After and the limit's key as the reason.
[[nodiscard]] Decision rate_decision(const RateCheck& check);

}  // namespace sluice::auth
