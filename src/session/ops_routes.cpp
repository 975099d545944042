// The operator routes over HTTP/1.1 (ops_answers.hpp decides them): a reply,
// or the dashboard's SSE stream of the system topic.
#include <string>

#include "dashboard/system_topic.hpp"
#include "session/http_request.hpp"
#include "session/ops_answers.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/sse_stream.hpp"

namespace sluice::session {

bool HttpRequestPhase::route_ops(const proto::http1::Request& request) {
  ReplyText text;
  std::string metrics_text;
  const OpsAnswer answer = answer_ops(services_, session_.peer(), request, text, metrics_text);
  switch (answer.kind) {
    case OpsAnswer::Kind::not_ops:
      return false;
    case OpsAnswer::Kind::reply:
      respond(answer.reply);
      return true;
    case OpsAnswer::Kind::follow_system_topic:
      follow_system_topic(request);
      return true;
  }
  return false;
}

// A dashboard that falls behind loses the oldest snapshots, never the
// stream: the next snapshot carries every total again.
void HttpRequestPhase::follow_system_topic(const proto::http1::Request& request) {
  const std::string topic(dashboard::kSystemTopic);
  auto stream = std::make_unique<SseStream>(session_, services_, session_.peer());
  SseStream& sse = *stream;
  handed_over_ = true;
  session_.become(std::move(stream));
  sse.open(make_sse_head(services_.pool(), services_.config().sse_retry_ms, cors_origin(request)),
           std::span<const std::string>(&topic, 1), Policy::drop_oldest, {});
}

}  // namespace sluice::session
