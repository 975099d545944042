// Owns: AdminView, the server's side of the admin API: it reads the topic
// book (each topic under its own lock, briefly, as the $sys snapshots do)
// and writes the JSON the admin routes send, and it hands closes and a
// drain to the loops that own the connections. It holds no state of its
// own between requests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hub/topic_book.hpp"
#include "server/connection_listing.hpp"
#include "server/worker.hpp"
#include "session/admin_desk.hpp"

namespace sluice::server {

class AdminView final : public session::AdminDesk {
 public:
  // The limits it applies (admin.*) come with each call, from the config
  // of the loop that serves the request, which a reload may have changed.
  AdminView(const hub::TopicBook& book, const std::vector<std::unique_ptr<Worker>>& workers)
      : book_(book), workers_(workers) {}

  void write_topics(std::string& out, std::size_t limit, std::string_view after) const override;
  [[nodiscard]] bool write_topic(std::string& out, std::string_view topic, std::size_t events) const override;
  [[nodiscard]] bool close_connection(std::uint64_t id) override;
  [[nodiscard]] std::uint64_t ask_connections(std::size_t limit, std::uint64_t after) override;
  [[nodiscard]] bool collect_connections(std::uint64_t ticket, std::string& out) override;
  void abandon_connections(std::uint64_t ticket) override { listing_.abandon(ticket); }
  void drain(std::int64_t grace_ms) override;

  // What the loops add their connections' rows to.
  [[nodiscard]] ConnectionListing& listing() { return listing_; }

 private:
  const hub::TopicBook& book_;
  const std::vector<std::unique_ptr<Worker>>& workers_;
  ConnectionListing listing_;
};

}  // namespace sluice::server
