// Owns: Sink, the one-method interface through which encoders write bytes.
// Encoders in proto/ write into a Sink so that the same code fills pool
// blocks (FrameBuilder), a test string, or a fixed buffer.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice::buf {

class Sink {
 public:
  // Appends `n` bytes. Returns false when the sink cannot take them (its
  // memory is exhausted); the sink is then failed and later appends are
  // ignored, so an encoder may write on and check once at the end.
  virtual bool append(const char* data, std::size_t n) = 0;

  bool append(std::string_view s) { return append(s.data(), s.size()); }

 protected:
  ~Sink() = default;
};

}  // namespace sluice::buf
