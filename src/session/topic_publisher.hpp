// Owns: TopicPublisher, a WebSocket stream's client messages published to
// one topic. A message the hub cannot take yet (busy, or the pool is short)
// is held: the stream reads nothing more meanwhile, so the publisher's own
// TCP window slows it down and nothing it sent is lost; the loop retries it
// (HeldPublishers) and the stream reads on once it is taken.
#pragma once

#include <string>
#include <string_view>

#include "conn/outlet.hpp"
#include "hub/hub_types.hpp"

namespace sluice::session {

class LoopServices;

class TopicPublisher {
 public:
  class Owner {
   public:
    // The hub refused the message for good (a bad topic, the topic limit).
    virtual void publish_refused(hub::HubStatus status) = 0;

   protected:
    ~Owner() = default;
  };

  // A topic it makes is charged to `allowance` (the client's).
  TopicPublisher(LoopServices& services, conn::Outlet& outlet, Owner& owner, std::string topic,
                 hub::TopicAllowance& allowance);
  ~TopicPublisher();
  TopicPublisher(const TopicPublisher&) = delete;
  TopicPublisher& operator=(const TopicPublisher&) = delete;

  // Publishes `data`, or holds a copy of it (see above).
  void publish(std::string_view data);
  // While true the stream decodes no more input.
  [[nodiscard]] bool holding() const { return holding_; }
  // The loop's retry of the held message; input resumes once it is taken.
  void retry();
  // The stream closed: nothing is retried any more.
  void release();

 private:
  [[nodiscard]] hub::PublishResult publish_or_wait(std::string_view data);

  LoopServices& services_;
  conn::Outlet& outlet_;
  Owner& owner_;
  const std::string topic_;
  hub::TopicAllowance& allowance_;
  std::string held_;
  bool holding_ = false;
};

}  // namespace sluice::session
