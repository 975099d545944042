// A POST /pub/{topic} with a broker: the event goes to the topic's Redis
// Stream and the client's answer is Redis's, so that a 200 means what it
// means on one node: the event is in the history every subscriber (on every
// node) reads. Refused at once (503) when it cannot be sent; otherwise held,
// bounded by broker.max_pending and broker.request_timeout_ms.
#include "hub/hub.hpp"
#include "session/http_request.hpp"
#include "session/publish_metrics.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/shared_routes.hpp"

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
  if (status != broker::PublishStatus::ok) return published(publish_ticket_, status, {}, {});
  awaiting_publish_ = true;
  publish_topic_.assign(topic);
  publish_origin_.assign(cors_origin(request));
}

void HttpRequestPhase::published(std::uint32_t, broker::PublishStatus status, broker::StreamId id,
                                 std::string_view error) {
  const bool was_waiting = awaiting_publish_;
  awaiting_publish_ = false;
  ReplyText text;
  respond(broker_publish_answer(services_, status, id, error, publish_topic_, publish_origin_, text));
  held_line_.write(answered_status_, session_.loop().now());
  // The requests pipelined behind this one were left unread: on with them.
  if (was_waiting && !session_.ended()) session_.resume_input();
}

}  // namespace sluice::session
