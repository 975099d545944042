#include "auth/rate_limiter.hpp"

#include <algorithm>
#include <bit>

namespace sluice::auth {

namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;

// The config key of each limit, for refusals: [kind][scope].
constexpr const char* kLimitKeys[3][2] = {
    {"auth.rate.connect_per_ip", "auth.rate.connect_per_identity"},
    {"auth.rate.subscribe_per_ip", "auth.rate.subscribe_per_identity"},
    {"auth.rate.publish_per_ip", "auth.rate.publish_per_identity"},
};

std::int64_t ns_since_epoch(RateTable::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

const RateRule& RateConfig::rule(RateKind kind, RateScope scope) const {
  const bool by_address = scope == RateScope::address;
  switch (kind) {
    case RateKind::connect: return by_address ? connect_per_address : connect_per_identity;
    case RateKind::subscribe: return by_address ? subscribe_per_address : subscribe_per_identity;
    case RateKind::publish: return by_address ? publish_per_address : publish_per_identity;
  }
  return connect_per_address;
}

RateTable::RateTable(std::size_t entries)
    : entries_(std::bit_ceil(std::max(entries, kWays))), set_mask_(entries_.size() / kWays - 1) {}

RateTable::Entry& RateTable::slot(std::uint64_t key, std::int64_t now_ns) noexcept {
  Entry* set = &entries_[(key & set_mask_) * kWays];
  Entry* victim = &set[0];
  for (std::size_t way = 0; way < kWays; ++way) {
    Entry& e = set[way];
    if (e.key == key) return e;
    // Prefer an entry that holds nothing (empty, or a bucket full again),
    // then the one nearest to full.
    const bool free = e.key == 0 || e.full_at_ns <= now_ns;
    const bool victim_free = victim->key == 0 || victim->full_at_ns <= now_ns;
    if ((free && !victim_free) || (free == victim_free && e.full_at_ns < victim->full_at_ns)) victim = &e;
  }
  if (victim->key != 0 && victim->full_at_ns > now_ns) ++evictions_;
  *victim = Entry{key, now_ns};
  return *victim;
}

std::int64_t RateTable::take(std::uint64_t key, const RateRule& rule, Clock::time_point now) noexcept {
  if (rule.per_second == 0) return 0;
  const std::int64_t now_ns = ns_since_epoch(now);
  const std::int64_t interval = kNsPerSecond / rule.per_second;
  const std::int64_t tolerance = interval * (std::max<std::uint32_t>(rule.burst, 1) - 1);
  Entry& e = slot(key, now_ns);
  const std::int64_t full_at = std::max(e.full_at_ns, now_ns);
  if (full_at - now_ns > tolerance) return full_at - now_ns - tolerance;
  e.full_at_ns = full_at + interval;
  return 0;
}

RateLimiter::RateLimiter(const RateConfig& config, SipKey key)
    : config_(config), key_(key), table_(config.table_entries) {}

void RateLimiter::set_rules(const RateConfig& config) noexcept {
  const std::size_t entries = config_.table_entries;
  config_ = config;
  config_.table_entries = entries;
}

std::uint64_t RateLimiter::key_for(RateKind kind, RateScope scope, std::string_view bytes) const noexcept {
  // Each (kind, scope) hashes under its own key, so an address and a
  // subject with the same bytes never share a bucket.
  const auto tag = static_cast<std::uint64_t>(kind) * 2 + static_cast<std::uint64_t>(scope) + 1;
  const std::uint64_t hash = siphash24({key_.k0 ^ (tag * 0x9e3779b97f4a7c15ULL), key_.k1}, bytes);
  return hash != 0 ? hash : 1;
}

RateCheck RateLimiter::check(RateKind kind, const PeerAddress& address, std::string_view identity,
                             Clock::time_point now) noexcept {
  if (RateCheck c = check_one(kind, RateScope::address, address.view(), now); !c.allowed) return c;
  return check_one(kind, RateScope::identity, identity, now);
}

RateCheck RateLimiter::check_one(RateKind kind, RateScope scope, std::string_view key,
                                 Clock::time_point now) noexcept {
  if (key.empty()) return {};
  const std::int64_t wait_ns = table_.take(key_for(kind, scope, key), config_.rule(kind, scope), now);
  if (wait_ns <= 0) return {};
  const auto seconds = static_cast<std::uint32_t>((wait_ns + kNsPerSecond - 1) / kNsPerSecond);
  return {false, std::max<std::uint32_t>(seconds, 1), kLimitKeys[static_cast<int>(kind)][static_cast<int>(scope)]};
}

Decision rate_decision(const RateCheck& check) {
  if (check.allowed) return Decision::allow();
  return Decision::over_limit(std::string("over ") + check.limit, check.retry_after_s);
}

}  // namespace sluice::auth
