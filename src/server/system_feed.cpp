#include "server/system_feed.hpp"

#include <string_view>

namespace sluice::server {

SystemFeed::SystemFeed(const Config& config, const metrics::Registry& registry, const OpsView& ops,
                       hub::TopicBook& book)
    : registry_(registry),
      ops_(ops),
      book_(book),
      system_topic_(static_cast<std::size_t>(config.ops.sys_max_topics)),
      started_(std::chrono::steady_clock::now()) {}

// The names are copied into strings kept from tick to tick (their capacity
// reused), so a steady set of topics is sampled without allocating.
void SystemFeed::tick() {
  samples_.clear();
  book_.sample_topics([this](std::string_view name, std::size_t subscribers, std::uint64_t published) {
    if (name == dashboard::kSystemTopic) return;  // the snapshots are not news about the traffic
    const std::size_t at = samples_.size();
    if (at == names_.size()) names_.emplace_back();
    names_[at].assign(name);
    samples_.push_back({{}, subscribers, published});
  });
  // The names are pointed at once the vector has stopped growing.
  for (std::size_t i = 0; i < samples_.size(); ++i) samples_[i].name = names_[i];
  const auto now = std::chrono::steady_clock::now();
  const dashboard::SnapshotTime time{now, std::chrono::system_clock::now(),
                                     std::chrono::duration_cast<std::chrono::seconds>(now - started_)};
  const std::string_view snapshot = system_topic_.snapshot(registry_, ops_.gauges(), samples_, time);
  // A refusal (the pool full, a dashboard behind) loses this snapshot only:
  // the next one carries the totals again.
  (void)book_.publish_server(dashboard::kSystemTopic, {snapshot, dashboard::kSnapshotEvent, {}});
}

}  // namespace sluice::server
