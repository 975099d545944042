// Owns: FixedSink, a Sink over a caller's fixed buffer, for short texts
// assembled on the stack before they are framed (an HTTP reply, say).
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "buf/sink.hpp"

namespace sluice::buf {

class FixedSink final : public Sink {
 public:
  FixedSink(char* buffer, std::size_t capacity) : buffer_(buffer), capacity_(capacity) {}

  using Sink::append;
  bool append(const char* data, std::size_t n) override {
    if (failed_ || capacity_ - size_ < n) {
      failed_ = true;
      return false;
    }
    if (n == 0) return true;  // an empty view's data may be null, which memcpy must not see
    std::memcpy(buffer_ + size_, data, n);
    size_ += n;
    return true;
  }

  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] std::string_view text() const { return {buffer_, size_}; }

 private:
  char* buffer_;
  std::size_t capacity_;
  std::size_t size_ = 0;
  bool failed_ = false;
};

}  // namespace sluice::buf
