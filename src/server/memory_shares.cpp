#include "server/memory_shares.hpp"

#include <algorithm>

#include "buf/charged_buffer.hpp"
#include "conn/connection.hpp"
#include "server/int_settings.hpp"

namespace sluice::server {

std::size_t message_share(const Config& config) {
  const auto message = static_cast<std::size_t>(config.ws.max_message);
  return 2 * buf::charged_part(message, buf::kRestingCapacity);
}

std::size_t body_share(const Config& config) {
  const std::size_t body = config.http.max_body;
  const std::size_t raw = std::min(config.connection.receive_budget, body);
  return buf::charged_part(raw, conn::kInputResting) + buf::charged_part(body, buf::kRestingCapacity);
}

std::size_t tls_record_reserve(const Config& config) {
  if (config.tls.cert_file.empty()) return 0;
  if (config.tls_record_reserve_bytes > 0) return static_cast<std::size_t>(config.tls_record_reserve_bytes);
  return static_cast<std::size_t>(config.server_memory_bytes) / 16;
}

namespace {

std::string too_small(const Config& config, std::string_view key, std::int64_t value, std::size_t needed,
                      std::string_view what) {
  const IntSetting* row = find_int_setting("limits.connection_bytes");
  return "config key 'limits.connection_bytes' (" + std::to_string(config.connection.memory_bytes) +
         ") must be at least " + std::to_string(needed) + " for " + std::string(key) + " = " +
         std::to_string(value) + " (" + std::string(what) + "); raise it (between " + std::to_string(row->min) +
         " and " + std::to_string(row->max) + ") or lower " + std::string(key);
}

}  // namespace

std::optional<std::string> check_memory_shares(const Config& config) {
  const std::size_t limit = config.connection.memory_bytes;
  if (const std::size_t needed = message_share(config); needed > limit) {
    return too_small(config, "ws.max_message", config.ws.max_message, needed,
                     "a message being joined and a copy held while it waits");
  }
  if (const std::size_t needed = body_share(config); needed > limit) {
    return too_small(config, "http.max_body", static_cast<std::int64_t>(config.http.max_body), needed,
                     "a chunked body's raw bytes and the joined body");
  }
  if (config.tls_record_reserve_bytes > config.server_memory_bytes / 2) {
    return "config key 'limits.tls_record_reserve_bytes' (" + std::to_string(config.tls_record_reserve_bytes) +
           ") must be between 0 and half of limits.server_bytes (" +
           std::to_string(config.server_memory_bytes / 2) + ")";
  }
  return std::nullopt;
}

}  // namespace sluice::server
