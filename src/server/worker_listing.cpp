// Worker's side of the admin API: which connection ids are open on this
// loop (asked from the admin listener's loop), and the rows of its
// connections for a listing, made on this loop's own thread, the only one
// that may read its sessions.
#include <algorithm>
#include <chrono>

#include "server/worker.hpp"

namespace sluice::server {

bool Worker::has_connection(std::uint64_t id) const {
  const std::lock_guard lock(live_mutex_);
  return live_ids_.contains(id);
}

void Worker::opened(std::uint64_t id) {
  const std::lock_guard lock(live_mutex_);
  live_ids_.insert(id);
}

void Worker::closed(std::uint64_t id) {
  const std::lock_guard lock(live_mutex_);
  live_ids_.erase(id);
}

bool Worker::list_later(std::uint64_t ticket) {
  if (!command_inbox_.try_push(Command{0, {}, ticket})) return false;
  signal();
  return true;
}

void Worker::list_connections(std::uint64_t ticket) {
  std::uint64_t after = 0;
  if (listing_ == nullptr || !listing_->wants(ticket, after)) return;
  const auto now = loop_.now();
  for (const auto& session : sessions_) {
    if (session->closed()) continue;
    ConnectionRow row{.id = session->id()};
    // Rows the listing will not keep are counted without being made.
    if (row.id > after) {
      row.peer = session->peer().address().empty() ? session->transport_peer_address() : session->peer().address();
      std::size_t views = 0;
      session->each_view([&](const session::Phase::View& view) {
        if (views++ == 0) row.transport = view.transport;
        for (const session::TopicSlot& topic : view.topics) {
          if (!topic.name.empty()) row.topics.push_back(topic.name);
        }
      });
      // Two streams of one HTTP/2 connection may follow the same topic: the
      // row names it once (sorted, so a hundred streams' topics cost a sort,
      // not a search per name).
      if (views > 1) {
        std::sort(row.topics.begin(), row.topics.end());
        row.topics.erase(std::unique(row.topics.begin(), row.topics.end()), row.topics.end());
      }
      row.queued_bytes = session->queue().data_bytes();
      row.age_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - session->opened()).count();
    }
    listing_->add(ticket, std::move(row));
  }
  listing_->loop_done(ticket);
}

}  // namespace sluice::server
