// Owns: the translation of the public Config's limits into the structs each
// layer takes (the parser's, the pool's, the connection's, the hub's), so
// that the public header names no internal type. Defaults live in both
// places; the .cpp checks that they agree.
#pragma once

#include "buf/pool.hpp"
#include "conn/connection.hpp"
#include "hub/hub_types.hpp"
#include "proto/http1.hpp"
#include "sluice/config.hpp"
#include "transport/h2_types.hpp"

namespace sluice::session {

[[nodiscard]] proto::http1::Limits http_limits(const server::HttpLimits& limits);
[[nodiscard]] buf::PoolConfig pool_config(const server::PoolConfig& config);
[[nodiscard]] conn::ConnectionLimits connection_limits(const server::ConnectionLimits& limits);
[[nodiscard]] hub::HubLimits hub_limits(const server::TopicLimits& limits);
// The HTTP/2 engine's limits: the h2.* keys, the request limits it shares
// with HTTP/1.1 (http.max_headers, http.max_body) and each stream's send
// budget (send.*).
[[nodiscard]] transport::H2Limits h2_limits(const server::Config& config);
// h2.body_blocks in force: the key's value, or by default a quarter of
// the pool's data blocks, and at least the blocks of one http.max_body.
[[nodiscard]] std::size_t h2_body_blocks(const server::Config& config);

}  // namespace sluice::session
