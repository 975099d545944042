#include "log/access.hpp"

#include <array>

#include "log/redact.hpp"

namespace sluice::log {

void log_access(Logger& logger, const AccessRecord& record) {
  if (!logger.access() || !logger.enabled(Level::info)) return;
  std::array<char, kMaxLineBytes> target;
  Line line = logger.info("access");
  line.field("method", record.method)
      .field("target", redact_target(record.target, target))
      .field("status", record.status)
      .field("transport", record.transport)
      .field("peer", record.peer)
      .field("conn", record.connection);
  if (record.stream != 0) line.field("stream", record.stream);
  line.field("user_agent", record.user_agent)
      .field("body_bytes", record.body_bytes)
      .field("duration_us", record.duration_us);
}

}  // namespace sluice::log
