// The operator routes of the public listener: GET /metrics (the Prometheus
// text exposition of every loop's counters, summed at scrape time) and
// GET /dashboard (the embedded page, which follows the $sys topic). Both
// only read; each can be switched off (metrics.enabled, dashboard.enabled).
#include <cstdio>
#include <string>

#include "dashboard/asset.hpp"
#include "metrics/exposition.hpp"
#include "session/http_request.hpp"
#include "session/services.hpp"

namespace sluice::session {

namespace {

using proto::http1::Method;

constexpr std::string_view kDashboardPath = "/dashboard";

}  // namespace

bool HttpRequestPhase::route_ops(const proto::http1::Request& request) {
  const server::OpsConfig& ops = services_.config().ops;
  const bool metrics = ops.metrics != 0 && request.path == ops.metrics_path;
  const bool dashboard = ops.dashboard != 0 && request.path == kDashboardPath;
  if (!metrics && !dashboard) return false;
  if (request.method != Method::get) {
    method_not_allowed("GET");
    return true;
  }
  if (metrics) {
    // Allocated here, once per scrape, never on a loop's event path.
    std::string text;
    text.reserve(16384);
    services_.ops().write_metrics(text);
    respond({.status = 200, .content_type = metrics::kExpositionContentType, .body = text});
    return true;
  }
  const dashboard::Asset& page = dashboard::dashboard_page();
  char headers[160];
  const int n = std::snprintf(headers, sizeof headers, "ETag: %.*s\r\nCache-Control: no-cache\r\n",
                              static_cast<int>(page.etag.size()), page.etag.data());
  const std::string_view extra(headers, static_cast<std::size_t>(n));
  if (request.header("If-None-Match") == page.etag) {
    respond({.status = 304, .body = {}, .extra_headers = extra});
    return true;
  }
  respond({.status = 200, .content_type = page.content_type, .body = page.bytes, .extra_headers = extra});
  return true;
}

}  // namespace sluice::session
