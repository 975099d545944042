// Owns: the client side of a bench WebSocket: the upgrade request with a
// fresh Sec-WebSocket-Key, the strict check of the server's answer (101,
// Upgrade, Connection, the exact Sec-WebSocket-Accept, no extension since
// none was offered), a blocking connect that does both, and the masked
// frames a client sends. Keys and masks come from sluice's proto/ helpers
// (OpenSSL CSPRNG and SHA-1), so the bench and the server share that code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "http_reply.hpp"
#include "tls_client.hpp"
#include "io/socket.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::bench {

// Fills `request` with "GET `path`" and an upgrade to WebSocket, and `key`
// with the fresh key it carries; a non-empty `last_event_id` goes with it
// as Last-Event-ID (sluiced resumes /ws/{topic} after it). False when the
// CSPRNG has no entropy.
[[nodiscard]] bool make_upgrade_request(std::string_view path, std::string& request, std::string& key,
                                        std::string_view last_event_id = {});

// Checks the parsed head of the answer to an upgrade that sent `key`;
// `text` is the raw head. Empty when it is a valid 101, else why not.
[[nodiscard]] std::string check_upgrade(std::string_view text, const ReplyHead& head, std::string_view key);

struct WsConnection {
  int fd = -1;           // blocking; -1 on failure
  std::string leftover;  // bytes that followed the 101 head (frames already sent)
  std::string error;
};

// Connects to `server`, upgrades GET `path` and checks the answer, waiting
// until `deadline_ns` (now_ns() scale) at most. SO_RCVBUF is set to
// `receive_buffer` first when > 0.
[[nodiscard]] WsConnection ws_connect(const io::Endpoint& server, std::string_view path, std::uint64_t deadline_ns,
                                      int receive_buffer = 0);
// The same through `channel`, opened on the new socket over TLS when `tls`
// is set (HTTP/1.1 by ALPN); the connection is read and written through
// it from then on, and over TLS what followed the head may wait in the
// channel rather than in `leftover`.
[[nodiscard]] WsConnection ws_connect(Channel& channel, const TlsClient* tls, const io::Endpoint& server,
                                      std::string_view path, std::uint64_t deadline_ns, int receive_buffer = 0);

// Appends one final frame of `op` carrying `payload`, masked with a fresh
// key. False when there was no entropy or a control payload is over 125.
[[nodiscard]] bool append_masked(std::string& out, proto::ws::Opcode op, std::string_view payload);

// Appends a masked close frame with `code` and no reason.
[[nodiscard]] bool append_close(std::string& out, std::uint16_t code);

}  // namespace sluice::bench
