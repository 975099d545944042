#include "session/held_access_line.hpp"

#include <chrono>

namespace sluice::session {

void HeldAccessLine::hold(log::Logger& logger, const log::AccessRecord& record, io::Loop::Clock::time_point started) {
  if (!fields_) fields_ = std::make_unique<Fields>();
  logger_ = &logger;
  Fields& f = *fields_;
  f.method.assign(record.method);
  f.target.assign(record.target);
  f.transport.assign(record.transport);
  f.peer.assign(record.peer);
  f.user_agent.assign(record.user_agent);
  f.connection = record.connection;
  f.body_bytes = record.body_bytes;
  f.started = started;
}

void HeldAccessLine::write(int status, io::Loop::Clock::time_point now) {
  if (logger_ == nullptr) return;
  log::Logger& logger = *logger_;
  logger_ = nullptr;
  const Fields& f = *fields_;
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(now - f.started);
  log::log_access(logger, {.method = f.method,
                           .target = f.target,
                           .status = status,
                           .transport = status == 200 || status == 101 ? std::string_view(f.transport) : "http",
                           .peer = f.peer,
                           .connection = f.connection,
                           .user_agent = f.user_agent,
                           .body_bytes = f.body_bytes,
                           .duration_us = static_cast<std::uint64_t>(elapsed.count())});
}

}  // namespace sluice::session
