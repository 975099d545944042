// Owns: how a client tells the application what went wrong and what it is
// doing about it: ClientError (what ended a connection attempt or a stream,
// and whether the client will retry) and StatusReport (a change of state).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sluice::client {

enum class ErrorKind : std::uint8_t {
  none,
  bad_url,         // start(): an address this client cannot use; fatal
  refused,         // nothing listens there (ECONNREFUSED); retried
  connect_failed,  // the connection could not be made in time, or the name did not resolve; retried
  http_status,     // the server answered another status than 200 (SSE) or 101 (WebSocket), see http_status
  bad_response,    // the answer is not HTTP, not an event stream, or not a valid WebSocket handshake; fatal
  protocol,        // the stream broke its protocol (SSE line or event over the limit, a bad
                   // WebSocket frame: close_code is the code the client closed with); retried
  closed,          // the server ended the stream (EOF, or a WebSocket close: close_code is its code); retried,
                   // but for a close 4401 or 4403 (credentials refused) before the stream lasted a second
                   // or brought an event: fatal, as a 401 or 403 status is
  idle_timeout,    // nothing at all arrived within idle_timeout (the server sends heartbeats); retried
  io_error,        // the socket failed mid-stream (reset by the peer, ...); retried
  aborted,         // the application called reconnect(); retried at once
  resources,       // a thread, an eventfd or random bytes could not be had; fatal
  tls,             // TLS failed: the CA file, the server's certificate (untrusted, expired, another
                   // host's), no shared version or protocol; fatal (a socket failing during the
                   // handshake is io_error or closed, and retried)
  bad_token,       // the token source gave a token a header cannot carry (a control character):
                   // nothing was sent; fatal
};

struct ClientError {
  ErrorKind kind = ErrorKind::none;
  // The client gives up: the error is of a fatal kind, or an http_status
  // other than 408, 429 and 5xx, or a close 4401 or 4403 at once (see
  // closed), or max_attempts consecutive attempts failed.
  bool fatal = false;
  int http_status = 0;           // http_status: the status the server sent
  std::uint16_t close_code = 0;  // protocol and closed over WebSocket: the close code
  std::string message;           // one line for people, e.g. "connect 127.0.0.1:9: connection refused"
};

[[nodiscard]] const char* error_kind_name(ErrorKind kind);

enum class ClientState : std::uint8_t {
  connecting,  // connecting, or waiting for the response head
  open,        // the stream is open: SSE 200 head read, or WebSocket handshake done
  waiting,     // the last attempt failed; reconnecting after `retry_in`
  failed,      // a fatal error: the client's thread has ended
  stopped,     // stop() was called: the client's thread has ended
};

[[nodiscard]] const char* state_name(ClientState state);

// Passed to ClientOptions::on_status on the client's thread; `error` points
// to the error that caused this state (waiting, failed), else is null, and
// is valid only during the call.
struct StatusReport {
  ClientState state = ClientState::connecting;
  const ClientError* error = nullptr;
  std::chrono::milliseconds retry_in{0};  // waiting: the delay before the next attempt
  std::uint32_t attempt = 0;              // consecutive failed attempts so far
};

}  // namespace sluice::client
