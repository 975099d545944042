// Owns: TopicPublisher, a WebSocket stream's client messages published to
// one topic. A message the hub cannot take yet (busy, or the pool is short)
// is held: the stream reads nothing more meanwhile, so the publisher's own
// TCP window slows it down and nothing it sent is lost; the loop retries it
// (HeldPublishers) and the stream reads on once it is taken. The held copy
// (up to ws.max_message) is charged to the connection's memory account: a
// copy the account refuses is not held, and the owner answers the client.
// With a broker the message goes to Redis and the stream reads nothing more
// until Redis has answered: one message in flight per publisher, so its
// messages reach the stream in the order it sent them.
#pragma once

#include <string>
#include <string_view>

#include "buf/charged_buffer.hpp"
#include "conn/outlet.hpp"
#include "hub/hub_types.hpp"
#include "session/broker_publishes.hpp"

namespace sluice::session {

class LoopServices;

class TopicPublisher final : private PublishWaiter {
 public:
  class Owner {
   public:
    // The hub refused the message for good (a bad topic, the topic limit).
    virtual void publish_refused(hub::HubStatus status) = 0;
    // The broker could not take the message (Redis unreachable, busy, or
    // no answer in time): `reason` is one line.
    virtual void publish_failed(std::string_view reason) = 0;
    // The message could not be held: its copy would pass a memory limit
    // (or the server is out of memory).
    virtual void hold_refused(buf::Growth growth) = 0;

   protected:
    ~Owner() = default;
  };

  // A topic it makes is charged to `allowance` (the client's), a held
  // message to `memory` (null: not charged) past its first `uncharged`
  // bytes (the stream's resting_uncharged(): none on an HTTP/2 stream).
  TopicPublisher(LoopServices& services, conn::Outlet& outlet, Owner& owner, std::string topic,
                 hub::TopicAllowance& allowance, buf::MemoryAccount* memory, std::size_t uncharged);
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
  void publish_to_broker(BrokerPublishes& publishes, std::string_view data);
  void published(std::uint32_t ticket, broker::PublishStatus status, broker::StreamId id,
                 std::string_view error) override;

  LoopServices& services_;
  conn::Outlet& outlet_;
  Owner& owner_;
  const std::string topic_;
  hub::TopicAllowance& allowance_;
  buf::ChargedBuffer held_;
  bool holding_ = false;
  bool awaiting_broker_ = false;  // a message is with the broker; holding_ too
  std::uint32_t ticket_ = 0;
};

}  // namespace sluice::session
