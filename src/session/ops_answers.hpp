// The operator routes of the public listener, decided once for HTTP/1.1
// (ops_routes.cpp) and HTTP/2 (h2_routes.cpp): GET /metrics (the Prometheus
// text exposition of every loop's counters, summed at scrape time), GET
// /dashboard (the embedded page) and GET /dashboard/events (the page's feed
// of the $sys topic). Each only reads, asks the authorizer first, and can be
// switched off (metrics.enabled, dashboard.enabled).
#pragma once

#include <string>

#include "proto/http1.hpp"
#include "session/response.hpp"
#include "session/shared_routes.hpp"

namespace sluice::session {

class LoopServices;
class Peer;

struct OpsAnswer {
  enum class Kind {
    not_ops,              // not an operator path (or switched off): routed on
    reply,                // `reply` is the whole answer
    follow_system_topic,  // allowed: the caller opens an SSE stream of $sys
  };
  Kind kind = Kind::not_ops;
  Response reply;
};

// Where the dashboard's page follows the system topic (its EventSource's
// default).
inline constexpr std::string_view kDashboardEventsPath = "/dashboard/events";

// `text` holds what `reply` points into; `metrics_text` the scrape's body,
// allocated once per scrape, never on a loop's event path.
[[nodiscard]] OpsAnswer answer_ops(LoopServices& services, Peer& peer, const proto::http1::Request& request,
                                   ReplyText& text, std::string& metrics_text);

}  // namespace sluice::session
