#include "server/connection_listing.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "buf/string_sink.hpp"
#include "proto/json_string.hpp"

namespace sluice::server {

std::uint64_t ConnectionListing::begin(std::size_t limit, std::uint64_t after, std::size_t loops) {
  const std::lock_guard lock(mutex_);
  if (active_) return 0;
  active_ = true;
  limit_ = std::max<std::size_t>(limit, 1);
  after_ = after;
  loops_pending_ = loops;
  total_ = 0;
  counted_ = 0;
  rows_.clear();
  rows_.reserve(2 * limit_ + 1);
  return ++ticket_;
}

bool ConnectionListing::wants(std::uint64_t ticket, std::uint64_t& after) const {
  const std::lock_guard lock(mutex_);
  after = after_;
  return active_ && ticket == ticket_ && loops_pending_ > 0;
}

void ConnectionListing::add(std::uint64_t ticket, ConnectionRow row) {
  const std::lock_guard lock(mutex_);
  if (!active_ || ticket != ticket_) return;
  ++counted_;
  if (row.id <= after_) return;
  ++total_;
  if (rows_.size() == 2 * limit_) keep_lowest(limit_);
  rows_.push_back(std::move(row));
}

void ConnectionListing::loop_done(std::uint64_t ticket) {
  const std::lock_guard lock(mutex_);
  if (active_ && ticket == ticket_ && loops_pending_ > 0) --loops_pending_;
}

void ConnectionListing::keep_lowest(std::size_t n) {
  if (rows_.size() <= n) return;
  const auto by_id = [](const ConnectionRow& a, const ConnectionRow& b) { return a.id < b.id; };
  std::nth_element(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(n), rows_.end(), by_id);
  rows_.resize(n);
}

bool ConnectionListing::collect(std::uint64_t ticket, std::string& out) {
  const std::lock_guard lock(mutex_);
  if (!active_ || ticket != ticket_ || loops_pending_ > 0) return false;
  active_ = false;
  keep_lowest(limit_);
  std::sort(rows_.begin(), rows_.end(), [](const ConnectionRow& a, const ConnectionRow& b) { return a.id < b.id; });
  buf::StringSink sink(out);
  out += "{\"connections\":[";
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const ConnectionRow& row = rows_[i];
    out += i == 0 ? "{\"id\":" : ",{\"id\":";
    out += std::to_string(row.id);
    out += ",\"peer\":";
    (void)proto::json::write_string(sink, row.peer);
    out += ",\"transport\":";
    (void)proto::json::write_string(sink, row.transport);
    out += ",\"topics\":[";
    for (std::size_t t = 0; t < row.topics.size(); ++t) {
      if (t > 0) out += ',';
      (void)proto::json::write_string(sink, row.topics[t]);
    }
    char text[96];
    const int n = std::snprintf(text, sizeof text, "],\"queued_bytes\":%zu,\"age_ms\":%" PRId64 "}", row.queued_bytes,
                                row.age_ms);
    out.append(text, static_cast<std::size_t>(n));
  }
  out += "],\"listed\":" + std::to_string(rows_.size()) + ",\"total\":" + std::to_string(counted_) + ",\"next\":";
  out += total_ > rows_.size() && !rows_.empty() ? std::to_string(rows_.back().id) : "null";
  out += "}\n";
  rows_.clear();
  rows_.shrink_to_fit();
  return true;
}

void ConnectionListing::abandon(std::uint64_t ticket) {
  const std::lock_guard lock(mutex_);
  if (ticket == ticket_) active_ = false;
}

}  // namespace sluice::server
