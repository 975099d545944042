#include "buf/memory_account.hpp"

namespace sluice::buf {

// Add first, then look: two loops charging at once can never both slip
// under the cap, and a refused charge is taken back at once.
bool MemoryCap::take(std::size_t bytes, std::size_t bound) {
  const std::size_t before = charged_.fetch_add(bytes, std::memory_order_relaxed);
  if (before + bytes <= bound) return true;
  charged_.fetch_sub(bytes, std::memory_order_relaxed);
  return false;
}

ChargeStatus MemoryAccount::try_charge(std::size_t bytes) {
  if (bytes == 0) return ChargeStatus::ok;
  if (bytes > limit_ - charged_) return ChargeStatus::over_connection;
  if (cap_ != nullptr && !cap_->take(bytes, cap_->below_reserve())) return ChargeStatus::over_server;
  charged_ += bytes;
  return ChargeStatus::ok;
}

ChargeStatus MemoryAccount::charge_from_reserve(std::size_t bytes) {
  if (bytes > limit_ - charged_) return ChargeStatus::over_connection;
  if (cap_ != nullptr && !cap_->take(bytes, cap_->limit())) return ChargeStatus::over_server;
  charged_ += bytes;
  return ChargeStatus::ok;
}

void MemoryAccount::count_refusal(ChargeStatus status) {
  if (cap_ == nullptr) return;
  if (status == ChargeStatus::over_connection) cap_->refused_connection_.fetch_add(1, std::memory_order_relaxed);
  if (status == ChargeStatus::over_server) cap_->refused_server_.fetch_add(1, std::memory_order_relaxed);
}

void MemoryAccount::release(std::size_t bytes) {
  if (bytes > charged_) bytes = charged_;
  charged_ -= bytes;
  if (cap_ != nullptr && bytes > 0) cap_->give_back(bytes);
}

}  // namespace sluice::buf
