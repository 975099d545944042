// A POST /pub/{topic} with a broker: the event goes to the topic's Redis
// Stream and the client's answer is Redis's, so that a 200 means what it
// means on one node: the event is in the history every subscriber (on every
// node) reads. Refused at once (503) when it cannot be sent; otherwise held,
// bounded by broker.max_pending and broker.request_timeout_ms.
#include <charconv>

#include "buf/fixed_sink.hpp"
#include "hub/hub.hpp"
#include "session/http_request.hpp"
#include "session/publish_metrics.hpp"
#include "session/response.hpp"
#include "session/services.hpp"
#include "session/session.hpp"

namespace sluice::session {

void HttpRequestPhase::publish_to_broker(BrokerPublishes& publishes, const proto::http1::Request& request,
                                         std::string_view topic, const hub::Message& message) {
  const hub::HubStatus checked = hub::check_publishable(topic, message, services_.hub().limits().max_topic_name);
  if (checked != hub::HubStatus::ok) {
    count_publish(services_.metrics(), checked);
    return refuse(checked);
  }
  const broker::PublishStatus status =
      publishes.publish(topic, {message.data, message.event, message.key}, *this, publish_ticket_);
  if (status != broker::PublishStatus::ok) return published(status, {}, {});
  awaiting_publish_ = true;
  publish_topic_.assign(topic);
  publish_origin_.assign(cors_origin(request));
}

void HttpRequestPhase::published(broker::PublishStatus status, broker::StreamId id, std::string_view error) {
  const bool was_waiting = awaiting_publish_;
  awaiting_publish_ = false;
  if (status != broker::PublishStatus::ok) {
    count_publish(services_.metrics(), hub::HubStatus::busy);
    const BrokerRefusal refusal = broker_refusal(status);
    char body[512];
    buf::FixedSink out(body, sizeof body);
    out.append(refusal.text);
    if (!error.empty()) {
      out.append(": ");
      out.append(error.substr(0, 256));
    }
    out.append("\n");
    respond({.status = refusal.http_status,
             .body = out.text(),
             .extra_headers = refusal.http_status == 503 ? "Retry-After: 1\r\n" : ""});
  } else {
    count_publish(services_.metrics(), hub::HubStatus::ok);
    char id_text[broker::kMaxEventIdText];
    const std::size_t id_length = broker::format_event_id(id, id_text);
    char json[1300];
    buf::FixedSink out(json, sizeof json);
    out.append("{\"topic\":\"");
    out.append(publish_topic_);
    out.append("\",\"id\":\"");
    out.append(id_text, id_length);
    // This node's subscribers: the other nodes' are not known here.
    out.append("\",\"subscribers\":");
    char count[24];
    const auto [count_end, ec] = std::to_chars(count, count + sizeof count, services_.hub().node_subscribers(publish_topic_));
    out.append(count, static_cast<std::size_t>(count_end - count));
    out.append("}\n");
    char cors[1024];
    respond({.status = 200,
             .content_type = "application/json",
             .body = out.text(),
             .extra_headers = cors_headers(publish_origin_, false, cors)});
  }
  // The requests pipelined behind this one were left unread: on with them.
  if (was_waiting && !session_.ended()) session_.resume_input();
}

}  // namespace sluice::session
