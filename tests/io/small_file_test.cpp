#include "io/small_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "scratch_file.hpp"

namespace sluice::io {
namespace {

using sluice::test::ScratchFile;

TEST(SmallFile, ARegularFileIsReadWholeUpToItsLimit) {
  const ScratchFile file("small_file.txt");
  std::ofstream(file.path()) << "0123456789";
  std::string text;
  EXPECT_EQ(read_small_file(file.path(), 10, text), std::nullopt);
  EXPECT_EQ(text, "0123456789");
  EXPECT_FALSE(irregular_file(file.path()));
  EXPECT_EQ(read_small_file(file.path(), 9, text), file.path() + " is larger than 9 bytes");
}

// Refused before it is opened: a FIFO's open would wait for a writer, a
// device may be read without end (or act when opened), a directory holds
// no text.
TEST(SmallFile, WhatIsThereAndNotARegularFileIsRefusedUnopened) {
  const ScratchFile fifo("small_file.fifo");
  ASSERT_EQ(::mkfifo(fifo.path().c_str(), 0600), 0);
  std::string text;
  for (const std::string& path : {fifo.path(), std::string("/dev/zero"), testing::TempDir()}) {
    EXPECT_TRUE(irregular_file(path)) << path;
    EXPECT_EQ(read_small_file(path, 1 << 20, text), path + " is not a regular file");
  }
}

TEST(SmallFile, AMissingFileIsNamedByItsOpen) {
  const ScratchFile missing("small_file.missing");
  std::string text;
  EXPECT_FALSE(irregular_file(missing.path()));
  EXPECT_EQ(read_small_file(missing.path(), 10, text), "cannot open " + missing.path() + ": No such file or directory");
}

}  // namespace
}  // namespace sluice::io
