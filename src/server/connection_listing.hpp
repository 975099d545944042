// Owns: ConnectionListing, one admin listing of the server's connections
// as the loops that own them report it. A session is touched only by its
// own loop, so the admin route cannot read them: it begins a listing, each
// loop adds its connections' rows when it next drains its inbox, and the
// route collects the page once every loop has answered. One listing is
// under way at a time; each keeps at most 2 x limit rows (the lowest ids
// after the cursor), whatever the number of connections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {

// One connection, as its loop sees it.
struct ConnectionRow {
  std::uint64_t id = 0;
  std::string peer;                 // ADDRESS:PORT
  std::string_view transport;       // "http", "sse", "ws", "h2" (a static name)
  std::vector<std::string> topics;  // followed now
  std::size_t queued_bytes = 0;     // data bytes waiting for the client
  std::int64_t age_ms = 0;
};

class ConnectionListing {
 public:
  // Begins a listing of the `limit` lowest ids above `after`, answered by
  // `loops` loops. Returns its ticket; 0 while another is under way.
  [[nodiscard]] std::uint64_t begin(std::size_t limit, std::uint64_t after, std::size_t loops);
  // A loop's turn, on its thread: whether `ticket` is still being listed
  // (a loop that finds it is not adds nothing), the cursor, then its rows.
  [[nodiscard]] bool wants(std::uint64_t ticket, std::uint64_t& after) const;
  void add(std::uint64_t ticket, ConnectionRow row);
  // The loop has added all it had (also for a loop that could not be asked).
  void loop_done(std::uint64_t ticket);
  // Appends the page's JSON to `out` once every loop has answered `ticket`;
  // false (nothing appended) while one has not.
  [[nodiscard]] bool collect(std::uint64_t ticket, std::string& out);
  // The route gave up waiting for `ticket`: another listing may begin.
  void abandon(std::uint64_t ticket);

 private:
  void keep_lowest(std::size_t n);

  mutable std::mutex mutex_;
  std::uint64_t ticket_ = 0;  // the current listing's, or of the last one
  bool active_ = false;       // begun and not yet collected or abandoned
  std::size_t limit_ = 0;
  std::uint64_t after_ = 0;
  std::size_t loops_pending_ = 0;
  std::size_t total_ = 0;   // connections after the cursor, listed or not
  std::size_t counted_ = 0;  // every connection the loops reported
  std::vector<ConnectionRow> rows_;
};

}  // namespace sluice::server
