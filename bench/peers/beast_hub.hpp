// Owns: the Beast peer's topics: Event, one published event encoded once for
// each wire form and shared by every subscriber's queue; Subscriber, what a
// topic delivers to (an SSE stream or a WebSocket); Hub, the topics and their
// subscribers. Everything here is touched from the one io_context thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace sluice::peers::beast_peer {

// A subscriber more than this many events behind is disconnected, as
// sluiced's default policy does with its send budget.
inline constexpr std::size_t kMaxQueued = 4096;

struct Event {
  std::string sse;      // "id: N\ndata: ...\n\n"
  std::string payload;  // the published bytes: one WebSocket message
  bool text = true;     // a text message, else binary
};
using EventPtr = std::shared_ptr<const Event>;

class Subscriber {
 public:
  virtual ~Subscriber() = default;
  virtual void push(const EventPtr& event) = 0;
};

class Hub {
 public:
  void subscribe(const std::string& topic, Subscriber* s) { topics_[topic].subscribers.insert(s); }
  void unsubscribe(const std::string& topic, Subscriber* s) { topics_[topic].subscribers.erase(s); }

  // Encodes `data` once and queues it to every subscriber of `topic`;
  // returns its id and the number of subscribers it went to.
  std::pair<std::uint64_t, std::size_t> publish(const std::string& topic, std::string_view data, bool text);

 private:
  struct Topic {
    std::uint64_t next_id = 1;
    std::set<Subscriber*> subscribers;
  };
  std::map<std::string, Topic, std::less<>> topics_;
};

}  // namespace sluice::peers::beast_peer
