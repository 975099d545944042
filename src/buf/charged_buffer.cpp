#include "buf/charged_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

namespace sluice::buf {

namespace {
constexpr std::size_t kMinCapacity = 256;
}  // namespace

Growth growth_of(ChargeStatus status) {
  switch (status) {
    case ChargeStatus::over_connection:
      return Growth::over_connection;
    case ChargeStatus::over_server:
      return Growth::over_server;
    case ChargeStatus::ok:
      break;
  }
  return Growth::ok;
}

// The account is charged before anything is allocated, and given the
// charge back if the allocation fails: its count is what is held.
Growth ChargedBuffer::reserve(std::size_t total, std::size_t limit) {
  if (total <= capacity_) return Growth::ok;
  const std::size_t wanted = std::max({total, capacity_ * 2, kMinCapacity});
  const std::size_t capacity = std::min(wanted, std::max(limit, total));
  const std::size_t charge_from = charged_part(capacity_, uncharged_);
  const std::size_t charge_to = charged_part(capacity, uncharged_);
  if (account_ != nullptr) {
    if (const Growth g = growth_of(account_->resize(charge_from, charge_to)); g != Growth::ok) return g;
  }
  std::unique_ptr<char[]> bigger(new (std::nothrow) char[capacity]);
  if (!bigger) {
    if (account_ != nullptr) account_->release(charge_to - charge_from);
    return Growth::no_memory;
  }
  if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = capacity;
  return Growth::ok;
}

Growth ChargedBuffer::append(std::string_view bytes, std::size_t limit) {
  if (bytes.empty()) return Growth::ok;
  const Growth g = reserve(size_ + bytes.size(), limit);
  if (g != Growth::ok) return g;
  std::memcpy(data_.get() + size_, bytes.data(), bytes.size());
  size_ += bytes.size();
  return Growth::ok;
}

void ChargedBuffer::trim(std::size_t keep) {
  if (capacity_ <= keep) return;
  give_back();
  data_.reset();
  size_ = 0;
  capacity_ = 0;
}

ChargedBuffer::ChargedBuffer(ChargedBuffer&& other) noexcept
    : account_(other.account_),
      uncharged_(other.uncharged_),
      data_(std::move(other.data_)),
      size_(other.size_),
      capacity_(other.capacity_) {
  other.size_ = 0;
  other.capacity_ = 0;
}

ChargedBuffer& ChargedBuffer::operator=(ChargedBuffer&& other) noexcept {
  if (this != &other) {
    give_back();
    account_ = other.account_;
    uncharged_ = other.uncharged_;
    data_ = std::move(other.data_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.size_ = 0;
    other.capacity_ = 0;
  }
  return *this;
}

void ChargedBuffer::give_back() {
  if (account_ != nullptr) account_->release(charged_part(capacity_, uncharged_));
}

}  // namespace sluice::buf
