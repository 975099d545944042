#include "session/publish_metrics.hpp"
#include "session/topic_publisher.hpp"

#include "hub/hub.hpp"
#include "session/services.hpp"

namespace sluice::session {

namespace {

bool retry_later(hub::HubStatus status) {
  return status == hub::HubStatus::busy || status == hub::HubStatus::no_memory;
}

}  // namespace

TopicPublisher::TopicPublisher(LoopServices& services, conn::Outlet& outlet, Owner& owner, std::string topic,
                               hub::TopicAllowance& allowance, buf::MemoryAccount* memory, std::size_t uncharged)
    : services_(services),
      outlet_(outlet),
      owner_(owner),
      topic_(std::move(topic)),
      allowance_(allowance),
      held_(memory, uncharged) {}

TopicPublisher::~TopicPublisher() { release(); }

void TopicPublisher::publish(std::string_view data) {
  if (BrokerPublishes* publishes = services_.broker_publishes()) return publish_to_broker(*publishes, data);
  const hub::PublishResult r = publish_or_wait(data);
  if (!retry_later(r.status)) count_publish(services_.metrics(), r.status);
  if (r.status == hub::HubStatus::ok) return;
  if (!retry_later(r.status)) return owner_.publish_refused(r.status);
  held_.clear();
  if (const buf::Growth growth = held_.append(data, data.size()); growth != buf::Growth::ok) {
    return owner_.hold_refused(growth);
  }
  holding_ = true;
  ++services_.counters().publishes_held;
  services_.metrics().publishes_held.add();
  services_.held_publishers().hold(this);
}

void TopicPublisher::publish_to_broker(BrokerPublishes& publishes, std::string_view data) {
  const hub::Message message{data, {}, {}};
  if (const hub::HubStatus checked = hub::check_publishable(topic_, message, services_.hub().limits().max_topic_name);
      checked != hub::HubStatus::ok) {
    count_publish(services_.metrics(), checked);
    return owner_.publish_refused(checked);
  }
  const broker::PublishStatus status = publishes.publish(topic_, {data, {}, {}}, *this, ticket_);
  if (status != broker::PublishStatus::ok) return published(ticket_, status, {}, {});
  awaiting_broker_ = true;
  holding_ = true;
}

void TopicPublisher::published(std::uint32_t, broker::PublishStatus status, broker::StreamId, std::string_view) {
  awaiting_broker_ = false;
  holding_ = false;
  if (status != broker::PublishStatus::ok) {
    count_publish(services_.metrics(), hub::HubStatus::busy);
    return owner_.publish_failed(broker_refusal(status).text);
  }
  count_publish(services_.metrics(), hub::HubStatus::ok);
  if (!outlet_.ended()) outlet_.resume_input();
}

void TopicPublisher::retry() {
  if (outlet_.ended() || !holding_ || awaiting_broker_) return;
  const hub::PublishResult r = publish_or_wait(held_.text());
  if (retry_later(r.status)) return services_.held_publishers().hold(this);
  count_publish(services_.metrics(), r.status);
  holding_ = false;
  held_.trim();  // a large copy goes back once taken
  if (r.status != hub::HubStatus::ok) return owner_.publish_refused(r.status);
  outlet_.resume_input();
}

void TopicPublisher::release() {
  if (awaiting_broker_) {
    services_.broker_publishes()->cancel(ticket_);
  } else if (holding_) {
    services_.held_publishers().release(this);
  }
  awaiting_broker_ = false;
  holding_ = false;
  held_.trim();
}

// On `busy` the hub is asked to wake this loop once a loop has delivered,
// then the publish is tried once more: a delivery between the first try
// and the request would otherwise wake nobody.
hub::PublishResult TopicPublisher::publish_or_wait(std::string_view data) {
  hub::Hub& hub = services_.hub();
  const hub::PublishResult r = hub.publish(topic_, {data, {}, {}}, &allowance_);
  if (r.status != hub::HubStatus::busy) return r;
  hub.wait_for_room(topic_);
  return hub.publish(topic_, {data, {}, {}}, &allowance_);
}

}  // namespace sluice::session
