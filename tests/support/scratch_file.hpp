// Owns: ScratchFile, a path in the tests' temporary directory, unique to
// the process, whose file is removed when the test is done with it: runs
// of the suite leave nothing behind.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace sluice::test {

class ScratchFile {
 public:
  explicit ScratchFile(std::string_view name)
      : path_(testing::TempDir() + std::to_string(::getpid()) + "_" + std::string(name)) {}
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace sluice::test
