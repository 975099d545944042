// Owns: OpsPages, what the operator routes of the public listener
// (GET /metrics, GET /dashboard) read of the whole server. The server
// implements it; a session reaches the other loops only through it, and
// only by reading (a scrape sums every loop's cells without a lock).
#pragma once

#include <string>

namespace sluice::session {

class OpsPages {
 public:
  // Appends the Prometheus text exposition of every loop's metrics.
  virtual void write_metrics(std::string& out) const = 0;

 protected:
  ~OpsPages() = default;
};

}  // namespace sluice::session
