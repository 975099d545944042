#include "dashboard/asset.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sluice::dashboard {
namespace {

const std::filesystem::path kPage =
    std::filesystem::path(SLUICE_SOURCE_DIR) / "src" / "dashboard" / "dashboard.html";

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned i = 0; i < length; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

TEST(DashboardAsset, TheEmbeddedPageIsTheSourceFileByteForByte) {
  const std::string source = file_bytes(kPage);
  ASSERT_GT(source.size(), 1000u) << kPage;
  const Asset& page = dashboard_page();
  EXPECT_EQ(page.bytes.size(), source.size());
  EXPECT_TRUE(page.bytes == source);  // not EXPECT_EQ: a mismatch would print 8 KiB twice
}

TEST(DashboardAsset, TheEtagIsTheStartOfTheBytesSha256) {
  const Asset& page = dashboard_page();
  EXPECT_EQ(page.etag, "\"" + sha256_hex(page.bytes).substr(0, 32) + "\"");
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
}

// Self-contained: nothing is fetched from another origin.
TEST(DashboardAsset, ThePageLoadsNothingFromElsewhere) {
  const std::string_view page = dashboard_page().bytes;
  for (const char* outside : {"http://", "https://", "//cdn", "src=", "<link", "@import"}) {
    EXPECT_EQ(page.find(outside), std::string_view::npos) << outside;
  }
  EXPECT_LT(page.size(), 16384u);
}

}  // namespace
}  // namespace sluice::dashboard
