// Owns: HeldPublishers, one loop's WebSocket publishers that hold a message
// the hub could not take yet (busy: a loop has yet to deliver what the
// history would drop; or the pool is short). Each is retried when a loop
// has delivered more of a topic this loop waits on (the hub's room_made)
// and on every sweep, since a pool that frees blocks tells nobody.
#pragma once

#include <vector>

namespace sluice::session {

class TopicPublisher;

class HeldPublishers {
 public:
  HeldPublishers() = default;
  HeldPublishers(const HeldPublishers&) = delete;
  HeldPublishers& operator=(const HeldPublishers&) = delete;

  // Held at most once each; release before the publisher is destroyed.
  void hold(TopicPublisher* publisher);
  void release(TopicPublisher* publisher);
  // Tries every held message once more.
  void retry();

 private:
  std::vector<TopicPublisher*> held_;
  std::vector<TopicPublisher*> retrying_;  // held_ while being retried
};

}  // namespace sluice::session
