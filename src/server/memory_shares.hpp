// Owns: the start-up check that one connection's memory account
// (limits.connection_bytes) covers the largest message and body the other
// limits let a client send.
//
// Without it, raising ws.max_message or http.max_body alone looks like it
// works until a client sends a message or body of the new size: the
// account refuses it (1009 or 413), and the limit the operator raised was
// never reachable. sluiced says so at start instead, naming both keys.
//
// Also: the slice of limits.server_bytes held back for TLS records
// (limits.tls_record_reserve_bytes, see buf::MemoryCap).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "sluice/config.hpp"

namespace sluice::server {

// What a WebSocket message of ws.max_message bytes can make the account
// hold: the decoder's joined message past its resting size, and a copy of
// it kept while it waits for pool room or for a decision given later.
[[nodiscard]] std::size_t message_share(const Config& config);
// What a body of http.max_body bytes can make it hold: the raw bytes in
// the input buffer (at most receive.budget_bytes) past its resting size,
// and, for a chunked body, the joined body past its own.
[[nodiscard]] std::size_t body_share(const Config& config);

// The bytes of limits.server_bytes only a TLS record's rest may take
// (buf::MemoryAccount::charge_from_reserve()): limits.tls_record_reserve_bytes,
// by default (0) a sixteenth of limits.server_bytes; none when the server
// does not serve TLS, so that a plain server's cap is whole.
[[nodiscard]] std::size_t tls_record_reserve(const Config& config);

// The one-line error when limits.connection_bytes is under either share,
// naming the keys, what is needed and the key's range; nullopt when it
// covers both, or when limits.tls_record_reserve_bytes passes half of
// limits.server_bytes.
[[nodiscard]] std::optional<std::string> check_memory_shares(const Config& config);

}  // namespace sluice::server
