// The bytes of a frame as one string, for the buffer tests to compare.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "buf/frame.hpp"

namespace sluice::buf {

inline std::string bytes_of(const FrameRef& f) {
  std::string out(f.size(), '\0');
  EXPECT_EQ(f.copy_to(out.data(), out.size()), f.size());
  return out;
}

}  // namespace sluice::buf
