#include "beast_hub.hpp"

#include <vector>

namespace sluice::peers::beast_peer {

std::pair<std::uint64_t, std::size_t> Hub::publish(const std::string& name, std::string_view data, bool text) {
  Topic& topic = topics_[name];
  const std::uint64_t id = topic.next_id++;
  auto event = std::make_shared<const Event>(
      Event{"id: " + std::to_string(id) + "\ndata: " + std::string(data) + "\n\n", std::string(data), text});
  // A push may disconnect a subscriber, which leaves the set.
  const std::vector<Subscriber*> targets(topic.subscribers.begin(), topic.subscribers.end());
  for (Subscriber* s : targets) s->push(event);
  return {id, targets.size()};
}

}  // namespace sluice::peers::beast_peer
