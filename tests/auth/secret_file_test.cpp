#include "auth/secret_file.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "scratch_file.hpp"

namespace sluice::auth {
namespace {

using sluice::test::ScratchFile;

TEST(SecretFile, TheFirstLineWithoutItsEndOrTrailingBlanks) {
  const ScratchFile file("secret_file.secret");
  std::ofstream(file.path()) << "s3cret-value \t\r\nsecond line\n";
  std::string secret;
  ASSERT_EQ(read_secret_file(file.path(), secret), std::nullopt);
  EXPECT_EQ(secret, "s3cret-value");
}

TEST(SecretFile, AnEmptyFirstLineOrADeviceIsNoSecret) {
  const ScratchFile file("secret_file.empty");
  std::ofstream(file.path()) << "\nthe second line is not read\n";
  std::string secret;
  EXPECT_EQ(read_secret_file(file.path(), secret), file.path() + ": nothing on its first line");
  EXPECT_EQ(read_secret_file("/dev/zero", secret), "/dev/zero is not a regular file");
}

}  // namespace
}  // namespace sluice::auth
