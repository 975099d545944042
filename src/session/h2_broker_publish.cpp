// A POST /pub/{topic} over HTTP/2 on a node with a broker, as over
// HTTP/1.1 (broker_publish.cpp): the event goes to the topic's Redis
// Stream and the stream is answered with Redis's answer, so that a 200
// carries the id every node knows the event by. The stream waits meanwhile
// (its exchange kept, its body already given back), bounded by
// broker.max_pending and broker.request_timeout_ms; the connection's other
// streams go on. A stream or connection that closes first cancels its wait.
#include "hub/hub.hpp"
#include "session/h2_connection.hpp"
#include "session/publish_metrics.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/shared_routes.hpp"

namespace sluice::session {

void H2Connection::publish_to_broker(BrokerPublishes& publishes, H2Exchange& post, std::string_view body) {
  const hub::Message message{body, post.event, post.key};
  const hub::HubStatus checked =
      hub::check_publishable(post.topic, message, services_.hub().limits().max_topic_name);
  ReplyText text;
  if (checked != hub::HubStatus::ok) {
    count_publish(services_.metrics(), checked);
    return answer_post(post, hub_refusal(services_.answer(checked), text));
  }
  const broker::PublishStatus status =
      publishes.publish(post.topic, {message.data, message.event, message.key}, *this, post.broker_ticket);
  if (status != broker::PublishStatus::ok) {
    return answer_post(post, broker_publish_answer(services_, status, {}, {}, post.topic, post.allow_origin, text));
  }
  post.awaiting_broker = true;
}

void H2Connection::published(std::uint32_t ticket, broker::PublishStatus status, broker::StreamId id,
                             std::string_view error) {
  H2Exchange* post = nullptr;
  exchanges_.for_each([&](H2Exchange& exchange) {
    if (exchange.awaiting_broker && exchange.broker_ticket == ticket) post = &exchange;
  });
  if (post == nullptr) return;  // cancelled when its stream closed; not reached
  post->awaiting_broker = false;
  ReplyText text;
  answer_post(*post, broker_publish_answer(services_, status, id, error, post->topic, post->allow_origin, text));
  session_.want_flush();
  end_if_owed_nothing();
}

}  // namespace sluice::session
