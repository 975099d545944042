#include "auth/callback_cache.hpp"

namespace sluice::auth {

CallbackCache::CallbackCache(std::size_t max_entries, std::chrono::milliseconds ttl, SipKey first, SipKey second)
    : max_entries_(max_entries), ttl_(ttl), first_(first), second_(second) {}

CallbackCache::Key CallbackCache::key_of(std::string_view question) const {
  return {siphash24(first_, question), siphash24(second_, question)};
}

const Decision* CallbackCache::find(const Key& key, Clock::time_point now) const {
  const auto it = entries_.find(key);
  return it != entries_.end() && now < it->second.expires ? &it->second.decision : nullptr;
}

void CallbackCache::store(const Key& key, const Decision& decision, Clock::time_point now) {
  if (!enabled()) return;
  while (!order_.empty() && entries_.at(order_.front()).expires <= now) drop_front();
  if (const auto it = entries_.find(key); it != entries_.end()) {
    it->second.decision = decision;
    return;
  }
  if (entries_.size() >= max_entries_) drop_front();
  entries_.emplace(key, Entry{decision, now + ttl_});
  order_.push_back(key);
}

void CallbackCache::drop_front() {
  entries_.erase(order_.front());
  order_.pop_front();
}

}  // namespace sluice::auth
