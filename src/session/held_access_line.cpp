#include "session/held_access_line.hpp"

#include <chrono>

namespace sluice::session {

void HeldAccessLine::hold(log::Logger& logger, const log::AccessRecord& record, io::Loop::Clock::time_point started) {
  logger_ = &logger;
  method_.assign(record.method);
  target_.assign(record.target);
  transport_.assign(record.transport);
  peer_.assign(record.peer);
  user_agent_.assign(record.user_agent);
  connection_ = record.connection;
  body_bytes_ = record.body_bytes;
  started_ = started;
}

void HeldAccessLine::write(int status, io::Loop::Clock::time_point now) {
  if (logger_ == nullptr) return;
  log::Logger& logger = *logger_;
  logger_ = nullptr;
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(now - started_);
  log::log_access(logger, {.method = method_,
                           .target = target_,
                           .status = status,
                           .transport = status == 200 || status == 101 ? std::string_view(transport_) : "http",
                           .peer = peer_,
                           .connection = connection_,
                           .user_agent = user_agent_,
                           .body_bytes = body_bytes_,
                           .duration_us = static_cast<std::uint64_t>(elapsed.count())});
}

}  // namespace sluice::session
