// Owns: the BIO through which OpenSSL reaches a connection's socket: one
// send() or recv() per call, never blocking, never raising SIGPIPE (a peer
// that has gone makes a write fail with EPIPE, as the plain writer's
// MSG_NOSIGNAL does, so a library user need not ignore the signal), and a
// count of the system calls made, which shows how many frames one call
// carried.
//
// OpenSSL's own socket BIO would be the one to use for kernel TLS (the
// kernel then frames and encrypts records itself); see TlsStream.
#pragma once

#include <openssl/types.h>

#include <cstddef>
#include <cstdint>

namespace sluice::transport {

struct SocketBioCounters {
  std::uint64_t sends = 0;  // send() calls, EINTR retries included
  std::uint64_t recvs = 0;  // recv() calls
  std::uint64_t received = 0;  // bytes recv() took from the socket
};

struct SocketBioState {
  int fd = -1;
  SocketBioCounters counters;
  // While `confined`, reads give OpenSSL at most `allowance` more bytes
  // (the whole records a read is held to); past them they say "retry", as
  // an empty socket does, without looking at the socket.
  bool confined = false;
  std::size_t allowance = 0;
  // A recv() found the socket empty (EAGAIN) since this was last cleared:
  // a "retry" that OpenSSL passes on then means "wait for readability",
  // and any other means the socket was not looked at and may hold more.
  bool found_empty = false;
  // Reads note when the bytes they take reached this host
  // (io::recv_stamped) in `arrival`, once `stamped`.
  bool stamped = false;
  std::int64_t arrival = 0;
  // A recv() returned 0: the peer shut its sending side. Told to OpenSSL
  // as the end of the stream (BIO_CTRL_EOF), which, with
  // SSL_OP_IGNORE_UNEXPECTED_EOF, makes a FIN without close_notify end the
  // reading side as close_notify does, and leaves the writing side open
  // for the replies still owed.
  bool peer_ended = false;
};

// A new BIO over `state->fd` (not owned, not closed by the BIO). `state`
// must outlive it. Returns null when OpenSSL is out of memory.
[[nodiscard]] BIO* new_socket_bio(SocketBioState* state);

}  // namespace sluice::transport
