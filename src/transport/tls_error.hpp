// Owns: the one line that says why an OpenSSL call failed, taken from
// OpenSSL's per-thread error queue (which it empties, so that an old error
// is never blamed on a later call).
#pragma once

#include <openssl/types.h>

#include <string>
#include <string_view>

namespace sluice::transport {

// "what: reason (detail)" for the oldest error queued on this thread, or
// "what: `fallback`" when the queue is empty. Clears the queue.
[[nodiscard]] std::string take_openssl_error(std::string_view what, std::string_view fallback = "failed");

// SSL_read/SSL_write's answer `n` on `ssl` as recv()/send() would give it,
// for code written against sockets: bytes; 0 at the end (close_notify, or
// an end of stream without it, which reads as the end as in clear); -1 with
// errno EAGAIN while a record waits for the socket, EPROTO for a TLS error
// (the error queue cleared), or the socket's own errno.
[[nodiscard]] long as_socket_result(SSL* ssl, int n);

}  // namespace sluice::transport
