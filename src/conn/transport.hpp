// Owns: Transport, the byte stream under one connection. A connection reads
// its peer's bytes and writes its queued frames only through this, so the
// same connection and the same streams run over plain TCP and over TLS: a
// transport moves bytes and never knows what they mean.
//
// A transport with a handshake or records of its own (TLS) may need the
// socket in the other direction than the caller asked for: a read that
// must first send a handshake message, or a record taken whole but sent
// only in part. It says so through read_wants_writable() and
// holds_output(), and the owner waits for writability for it.
//
// All calls happen on the thread of the loop that owns the connection.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::conn {

class Transport {
 public:
  virtual ~Transport() = default;

  // The socket the loop watches for readiness.
  [[nodiscard]] virtual int fd() const = 0;

  // Reads up to `room` bytes of the peer's stream into `out`. Returns the
  // bytes read, 0 at the peer's end of stream, or -errno (-EAGAIN when
  // nothing more can be read now; -EINTR when the read took a record that
  // carried no bytes for the caller, and the socket may hold more: read
  // again, within the turn).
  [[nodiscard]] virtual long read(char* out, std::size_t room) = 0;
  // What the last read() is to count against the connection's read turn
  // when that is more than the bytes it returned: a transport with records
  // of its own (TLS) counts what it took from the socket, and a record
  // that carried nothing for the caller (-EINTR) as a whole record, so a
  // client sending only such records cannot hold the loop. 0: the bytes
  // returned are the cost (plain TCP).
  [[nodiscard]] virtual std::size_t read_cost() const { return 0; }
  // From now on, reads note when the bytes they take from the socket
  // reached this host (io/arrival_stamp.hpp); false when the transport
  // cannot. A connection whose reader answers the latency gate's asks
  // turns this on: an answer is judged by when it came, not by when a
  // loop that stalled got round to reading it.
  virtual bool note_arrivals() { return false; }
  // When the last bytes taken from the socket reached this host, as
  // io::recv_stamped notes it (the last segment of the last read, so no
  // earlier than the bytes before it, but for segments reordered by a
  // loss). 0 when not noted.
  [[nodiscard]] virtual std::int64_t last_arrival() const { return 0; }
  // Whether the peer sent bytes that no read() has handed over yet (in the
  // socket, or taken from it and held ready), and in `arrival` when the
  // first of them reached this host, or later, never earlier
  // (io::peek_arrival; 0: not noted). Only once arrivals are noted; false
  // before, and when the transport cannot.
  [[nodiscard]] virtual bool unread_input(std::int64_t& arrival) {
    (void)arrival;
    return false;
  }

  // Writes from `count` iovecs (count <= IOV_MAX), which are only read
  // during the call. Returns the bytes taken (possibly fewer than offered),
  // or -errno: -EAGAIN when there is no room now. A transport that frames
  // or encrypts counts the caller's bytes, not its own.
  [[nodiscard]] virtual long writev(const struct iovec* iov, int count) = 0;

  // Ends our sending side once everything written has gone (the first half
  // of a graceful close). Returns 0 or -errno.
  virtual int shutdown_write() = 0;

  // The peer's address, "IP:PORT" ("[IPv6]:PORT"); empty when unknown.
  [[nodiscard]] virtual std::string peer_address() const = 0;

  // The connection is still being set up (a TLS handshake): no request can
  // arrive yet, and the owner's handshake deadline applies.
  [[nodiscard]] virtual bool handshaking() const { return false; }
  // The last read() returned -EAGAIN because the transport must send first:
  // call read() again once the socket is writable.
  [[nodiscard]] virtual bool read_wants_writable() const { return false; }
  // Bytes already counted as taken have not all reached the socket yet: call
  // writev() again (with no iovecs if nothing else is to go) once writable.
  [[nodiscard]] virtual bool holds_output() const { return false; }
  // The handshake chose HTTP/2 (ALPN h2): the peer's first bytes are its
  // connection preface.
  [[nodiscard]] virtual bool chose_h2() const { return false; }
  // Bytes the transport holds for the connection now past its idle state
  // (TLS record buffers while a record is partly read or waits for the
  // socket); the connection charges them to the server's cap, apart from
  // its own share (limits.connection_bytes), which is the request's.
  [[nodiscard]] virtual std::size_t held_bytes() const { return 0; }
  // The most held_bytes() can ever be: the transport's own bound.
  [[nodiscard]] virtual std::size_t most_held() const { return 0; }
  // Bytes the next read() may come to hold past held_bytes() (a TLS record
  // buffer, when a record arrives in part): charged before the read, so
  // that the transport allocates nothing the account has no room for.
  [[nodiscard]] virtual std::size_t read_reserve() const { return 0; }
  // When the reservation cannot be had: true when the next read(), into
  // `room` bytes, can be held to what leaves nothing held after it (whole
  // TLS records waiting in the socket), and is; it then needs none.
  [[nodiscard]] virtual bool confine_read(std::size_t room) {
    (void)room;
    return false;
  }
  // The room confine_read() needs: the plaintext a whole TLS record waiting
  // at the head of the socket may carry; 0 when no read can be confined.
  [[nodiscard]] virtual std::size_t confinable_room() const { return 0; }
  // When the caller has less room than that record (its input buffer is
  // nearly full and may not grow): true when the next read() can be held
  // to the whole record at the head of the socket, and is. The read then
  // gives what fits and the transport keeps the rest for the next read,
  // in what read_reserve() counted (one TLS record buffer), which the
  // caller charges before the read all the same.
  [[nodiscard]] virtual bool confine_read_keeping_rest() { return false; }
  // The peer has sent bytes (or its end) not read yet (a system call to look): when
  // not, a read that found no reservation waits for the event the next
  // bytes raise, and nothing is refused.
  [[nodiscard]] virtual bool bytes_waiting() const { return true; }
};

}  // namespace sluice::conn
