#include "embedded/lwip/tcp_input.hpp"

#include <algorithm>
#include <cstring>

namespace sluice::embedded::lwip {

TcpInput::~TcpInput() {
  if (waiting_ != nullptr) pbuf_free(waiting_);
}

bool TcpInput::received(pbuf* chain) {
  // One chain at a time: joining chains would overflow a pbuf's 16-bit
  // total length once more than 64 KiB waited.
  if (waiting_ != nullptr) return false;
  waiting_ = chain;
  waiting_offset_ = 0;
  move_in();
  return true;
}

std::size_t TcpInput::consume(std::size_t n) {
  n = std::min(n, used_);
  std::memmove(buffer_.data(), buffer_.data() + n, used_ - n);
  used_ -= n;
  move_in();
  return n;
}

std::size_t TcpInput::waiting() const { return waiting_ == nullptr ? 0 : waiting_->tot_len - waiting_offset_; }

void TcpInput::move_in() {
  if (waiting_ == nullptr) return;
  const std::size_t n = std::min(buffer_.size() - used_, waiting());
  const u16_t copied =
      pbuf_copy_partial(waiting_, buffer_.data() + used_, static_cast<u16_t>(n), static_cast<u16_t>(waiting_offset_));
  used_ += copied;
  waiting_offset_ += copied;
  if (waiting_offset_ == waiting_->tot_len) {
    pbuf_free(waiting_);
    waiting_ = nullptr;
    waiting_offset_ = 0;
  }
}

}  // namespace sluice::embedded::lwip
