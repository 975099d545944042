// The operator routes of the public listener: GET /metrics (the Prometheus
// text exposition of every loop's counters, summed at scrape time) and
// GET /dashboard (the embedded page, which follows the $sys topic). Both
// only read; each can be switched off (metrics.enabled, dashboard.enabled).
#include <cstdio>
#include <string>

#include "dashboard/asset.hpp"
#include "dashboard/system_topic.hpp"
#include "metrics/exposition.hpp"
#include "session/http_request.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/sse_stream.hpp"

namespace sluice::session {

namespace {

using proto::http1::Method;

constexpr std::string_view kDashboardPath = "/dashboard";
// Where the page follows the system topic (its EventSource's default).
constexpr std::string_view kDashboardEventsPath = "/dashboard/events";
// The name the authorizer is asked to grant before a scrape.
constexpr std::string_view kMetricsTopic = "$metrics";

}  // namespace

bool HttpRequestPhase::route_ops(const proto::http1::Request& request) {
  const server::OpsConfig& ops = services_.config().ops;
  const bool metrics = ops.metrics != 0 && request.path == ops.metrics_path;
  const bool dashboard = ops.dashboard != 0 && request.path == kDashboardPath;
  const bool events = ops.dashboard != 0 && request.path == kDashboardEventsPath;
  if (!metrics && !dashboard && !events) return false;
  if (request.method != Method::get) {
    method_not_allowed("GET");
    return true;
  }
  if (events) {
    follow_system_topic(request);
    return true;
  }
  if (metrics) {
    // Who may read the operator's figures is the authorizer's to say, asked
    // as a subscription to a server topic, which no "*" grant covers: a
    // scraper's token (or auth.anonymous_subscribe) names "$metrics".
    const AuthOutcome outcome = session_.peer().authorize(server::Action::subscribe, kMetricsTopic, request);
    if (!outcome.allowed()) {
      deny(outcome);
      return true;
    }
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

// An SSE stream of the system topic. Asked of the authorizer like any
// subscription. A dashboard that falls behind loses the oldest snapshots,
// never the stream: the next snapshot carries every total again.
void HttpRequestPhase::follow_system_topic(const proto::http1::Request& request) {
  const std::string topic(dashboard::kSystemTopic);
  if (const AuthOutcome outcome = session_.peer().authorize(server::Action::subscribe, topic, request);
      !outcome.allowed()) {
    return deny(outcome);
  }
  auto stream = std::make_unique<SseStream>(session_, services_, session_.peer());
  SseStream& sse = *stream;
  handed_over_ = true;
  session_.become(std::move(stream));
  sse.open(make_sse_head(services_.pool(), services_.config().sse_retry_ms, cors_origin(request)),
           std::span<const std::string>(&topic, 1), Policy::drop_oldest, {});
}

}  // namespace sluice::session
