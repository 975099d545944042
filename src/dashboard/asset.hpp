// Owns: the dashboard page as sluiced serves it: the bytes of
// src/dashboard/dashboard.html, embedded at build time
// (cmake/embed_asset.cmake writes them into a generated source file), its
// Content-Type and an ETag made from the bytes' SHA-256, so that a browser
// that has the page revalidates it for free.
#pragma once

#include <string_view>

namespace sluice::dashboard {

struct Asset {
  std::string_view bytes;
  std::string_view content_type;
  std::string_view etag;  // quoted, as the header carries it
};

[[nodiscard]] const Asset& dashboard_page();

}  // namespace sluice::dashboard
