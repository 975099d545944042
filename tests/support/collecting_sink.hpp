// Owns: CollectingSink, a buf::Sink that keeps every byte written to it, for
// tests that compare an encoder's output with the bytes they expect. Given a
// capacity, it refuses the write that would pass it and every write after,
// as a full pool block does, for tests of an encoder's answer to no room.
#pragma once

#include <cstddef>
#include <string>

#include "buf/sink.hpp"

namespace sluice::test {

class CollectingSink final : public buf::Sink {
 public:
  explicit CollectingSink(std::size_t capacity = std::string::npos) : capacity_(capacity) {}
  using Sink::append;
  bool append(const char* data, std::size_t n) override {
    if (failed_ || bytes.size() + n > capacity_) {
      failed_ = true;
      return false;
    }
    bytes.append(data, n);
    return true;
  }
  std::string bytes;

 private:
  std::size_t capacity_;
  bool failed_ = false;
};

}  // namespace sluice::test
