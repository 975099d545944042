// Owns: OpsPages, what the operator routes of the public listener
// (GET /metrics, GET /dashboard) and of the admin listener read of the
// whole server. The server implements it; a session reaches the other
// loops only through it: by reading (a scrape sums every loop's cells
// without a lock), or, from the admin listener, through the AdminDesk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "session/admin_desk.hpp"

namespace sluice::session {

class OpsPages {
 public:
  // Appends the Prometheus text exposition of every loop's metrics.
  virtual void write_metrics(std::string& out) const = 0;
  // The admin API's desk; null when the server has no admin listener.
  [[nodiscard]] virtual AdminDesk* admin() const = 0;
  // The loops that cannot use one of their Redis instances now (each loop
  // says so at its sweep), and how many loops there are.
  [[nodiscard]] virtual std::int64_t broker_loops_cut_off() const = 0;
  [[nodiscard]] virtual std::size_t loops() const = 0;

 protected:
  ~OpsPages() = default;
};

}  // namespace sluice::session
