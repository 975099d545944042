// Owns: CollectingSink, a buf::Sink that keeps every byte written to it, for
// tests that compare an encoder's output with the bytes they expect.
#pragma once

#include <cstddef>
#include <string>

#include "buf/sink.hpp"

namespace sluice::test {

class CollectingSink final : public buf::Sink {
 public:
  using Sink::append;
  bool append(const char* data, std::size_t n) override {
    bytes.append(data, n);
    return true;
  }
  std::string bytes;
};

}  // namespace sluice::test
