#include "session/ops_answers.hpp"

#include <cstdio>

#include "dashboard/asset.hpp"
#include "dashboard/system_topic.hpp"
#include "metrics/exposition.hpp"
#include "session/services.hpp"
#include "session/session.hpp"

namespace sluice::session {

namespace {

using proto::http1::Method;

constexpr std::string_view kDashboardPath = "/dashboard";
// The name the authorizer is asked to grant before a scrape.
constexpr std::string_view kMetricsTopic = "$metrics";

OpsAnswer reply(Response response) { return {.kind = OpsAnswer::Kind::reply, .reply = response}; }

OpsAnswer dashboard_page(const proto::http1::Request& request, ReplyText& text) {
  const dashboard::Asset& page = dashboard::dashboard_page();
  const int n = std::snprintf(text.headers, sizeof text.headers, "ETag: %.*s\r\nCache-Control: no-cache\r\n",
                              static_cast<int>(page.etag.size()), page.etag.data());
  const std::string_view extra(text.headers, static_cast<std::size_t>(n));
  if (request.header("If-None-Match") == page.etag) return reply({.status = 304, .extra_headers = extra});
  return reply({.status = 200, .content_type = page.content_type, .body = page.bytes, .extra_headers = extra});
}

}  // namespace

OpsAnswer answer_ops(LoopServices& services, Peer& peer, const proto::http1::Request& request, ReplyText& text,
                     std::string& metrics_text) {
  const server::OpsConfig& ops = services.config().ops;
  const bool metrics = ops.metrics != 0 && request.path == ops.metrics_path;
  const bool dashboard = ops.dashboard != 0 && request.path == kDashboardPath;
  const bool events = ops.dashboard != 0 && request.path == kDashboardEventsPath;
  if (!metrics && !dashboard && !events) return {};
  // HEAD as GET, the protocol's phase sending the head alone; the
  // dashboard's stream is for GET only.
  if (events && request.method != Method::get) {
    return reply({.status = 405, .body = "method not allowed\n", .extra_headers = "Allow: GET\r\n"});
  }
  if (request.method != Method::get && request.method != Method::head) {
    return reply({.status = 405, .body = "method not allowed\n", .extra_headers = "Allow: GET, HEAD\r\n"});
  }
  if (dashboard) return dashboard_page(request, text);
  // Who may read the operator's figures, or follow the system topic, is the
  // authorizer's to say, asked as a subscription to a server topic, which no
  // "*" grant covers: a scraper's token (or auth.anonymous_subscribe) names
  // "$metrics", a dashboard's "$sys".
  const std::string_view topic = metrics ? kMetricsTopic : dashboard::kSystemTopic;
  if (const AuthOutcome outcome = peer.authorize(server::Action::subscribe, topic, request); !outcome.allowed()) {
    return reply(denial(outcome, text));
  }
  if (events) return {.kind = OpsAnswer::Kind::follow_system_topic};
  metrics_text.reserve(16384);
  services.ops().write_metrics(metrics_text);
  return reply({.status = 200, .content_type = metrics::kExpositionContentType, .body = metrics_text});
}

}  // namespace sluice::session
