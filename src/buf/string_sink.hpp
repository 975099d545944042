// Owns: StringSink, a Sink that appends to a std::string the caller owns and
// reuses, for the few texts sluice assembles before framing them (JSON
// envelopes and notices) and for tests.
#pragma once

#include <cstddef>
#include <string>

#include "buf/sink.hpp"

namespace sluice::buf {

class StringSink final : public Sink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}

  using Sink::append;
  bool append(const char* data, std::size_t n) override {
    out_.append(data, n);
    return true;
  }

 private:
  std::string& out_;
};

}  // namespace sluice::buf
