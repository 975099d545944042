// Owns: WsTopics, what a WsClient on the JSON protocol remembers across
// connections: the topics it is subscribed to with the id to resume each
// from, and the requests sent but not yet answered, so that every request
// of the application gets exactly one ack, even when its connection drops.
//
// On each connection every topic is subscribed again with "since" set to
// its last id: the last event's received, else the `since` the application
// gave, else the topic's newest id that the server named in its subscribe
// ack, so that events published while no event had arrived yet are
// replayed too. An application's subscribe still unanswered when the
// connection dropped is answered by that re-subscription (same req).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "proto/ws_json.hpp"
#include "sluice/client/event.hpp"
#include "ws_protocol.hpp"
#include "ws_requests.hpp"

namespace sluice::client::detail {

// Where WsTopics writes the JSON text of each request it sends.
class JsonSink {
 public:
  virtual void send_json(std::string_view json) = 0;

 protected:
  ~JsonSink() = default;
};

class WsTopics {
 public:
  explicit WsTopics(WsRequests& requests) : requests_(requests) {}

  // A connection opened: subscribes to every topic again.
  void resubscribe(JsonSink& sink);
  // Records an application's request and sends it. Returns true with `ack`
  // filled when this ends an earlier subscribe of the same topic that lost
  // its connection and has not been re-sent yet: it is answered as
  // superseded, so that it too gets its one ack.
  [[nodiscard]] bool apply(const WsRequest& request, JsonSink& sink, Event& ack);
  // Matches an ack to its request. Returns true with `event` filled when
  // the application is to see it (its own requests, and failed
  // re-subscriptions); a failed subscribe ends the subscription. An ack
  // that is not for one of this client's numbered requests is ignored.
  [[nodiscard]] bool on_ack(const proto::wsjson::ServerMessage& ack, Event& event);
  // An event is being handed over: its id is where `topic` resumes from.
  // undo_event() puts back the id before it, when the hand-over is refused.
  void on_event(std::string_view topic, std::string_view id);
  // Whether the client follows `topic` (an event of another, unsubscribed
  // while it was on its way or a server's mistake, is not handed over).
  [[nodiscard]] bool follows(std::string_view topic);
  void undo_event(std::string_view topic);
  // The connection ended. Fills `acks` with the answers that will not come
  // (publishes, unsubscribes) and forgets what a re-subscription will redo.
  void on_disconnect(std::vector<Event>& acks);

  // Any thread.
  [[nodiscard]] std::string last_id(std::string_view topic) const;
  [[nodiscard]] std::size_t topic_count() const;

 private:
  struct Topic {
    std::string name;
    std::string policy;
    std::string resume_id;        // the last id received, else `since`, else the subscribe ack's last_id
    std::string prior_id;         // the one before, for undo_event()
    std::uint64_t app_req = 0;    // an application's subscribe not answered yet
  };
  struct Pending {
    std::uint64_t req;
    WsRequest::Op op;
    std::string topic;
    bool from_app;
  };

  Topic* find(std::string_view topic);
  void send_subscribe(Topic& topic, std::uint64_t req, JsonSink& sink);
  void forget_topic(std::string_view topic);
  bool settle_orphan(Topic& topic, Event& ack);
  [[nodiscard]] std::size_t find_pending(std::uint64_t req) const;

  WsRequests& requests_;
  mutable std::mutex mutex_;  // topics_ (read by last_id() from the application)
  std::vector<Topic> topics_;
  std::vector<Pending> pending_;  // the client's thread only
  std::string json_;
};

// The type an ack Event carries: the name of the request it answers.
[[nodiscard]] std::string_view request_name(WsRequest::Op op);

}  // namespace sluice::client::detail
