#include "transport/tls_transport.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "conn/connection.hpp"
#include "transport/plain_tcp.hpp"

namespace sluice::transport {

// A read the connection widens to the record at the head of the socket
// (Connection::confine_wider) decrypts that record's whole plaintext into
// its read chunk: a record's plaintext must fit one.
static_assert(kMaxRecordPlaintext <= conn::kReadChunk, "a TLS record's plaintext must fit a connection's read chunk");

TlsTransport::TlsTransport(const TlsContext& context, int fd, bool http11_only)
    : fd_(fd), stream_(context, fd, http11_only) {}

TlsTransport::~TlsTransport() { ::close(fd_); }

long TlsTransport::status_to_result(TlsStatus status) {
  read_wants_writable_ = status == TlsStatus::want_write;
  switch (status) {
    case TlsStatus::ok:
      return 1;
    case TlsStatus::want_read:
    case TlsStatus::want_write:
      return -EAGAIN;
    case TlsStatus::read_again:
      return -EINTR;
    case TlsStatus::eof:
      return 0;
    case TlsStatus::failed:
      break;
  }
  return stream_.failed_on_socket() ? -ECONNRESET : -EPROTO;
}

// A TLS connection opens with a handshake record (22); a request line
// opens with a method's upper-case letters.
bool TlsTransport::answered_plain_http() {
  char first = 0;
  if (::recv(fd_, &first, 1, MSG_PEEK | MSG_DONTWAIT) != 1) return false;
  first_bytes_seen_ = true;
  if (first < 'A' || first > 'Z') return false;
  static constexpr char kReply[] =
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 52\r\nConnection: close\r\n\r\n"
      "this port speaks TLS: use https:// (wss://) instead\n";
  // What the request sent is read and dropped first: closing a socket with
  // unread bytes sends a reset, which could reach the client before the
  // reply does. A fresh socket's buffer takes the reply in one send.
  char drained[4096];
  for (int i = 0; i < 16 && ::recv(fd_, drained, sizeof drained, MSG_DONTWAIT) > 0; ++i) {
  }
  (void)::send(fd_, kReply, sizeof kReply - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd_, SHUT_WR);
  return true;
}

long TlsTransport::read(char* out, std::size_t room) {
  if (!stream_.valid()) return -EPROTO;
  if (!first_bytes_seen_ && answered_plain_http()) return -EPROTO;
  if (!stream_.established()) {
    if (const long done = status_to_result(stream_.handshake()); done != 1) return done;
  }
  std::size_t got = 0;
  const long result = status_to_result(stream_.read({out, room}, got));
  return result == 1 ? static_cast<long>(got) : result;
}

int TlsTransport::shutdown_write() {
  // A close_notify the socket has no room for is not waited for: the
  // queue has drained, so the socket is all but empty, and the peer sees
  // the end of the stream either way.
  (void)stream_.shutdown();
  return ::shutdown(fd_, SHUT_WR) == 0 ? 0 : -errno;
}

// The peer's end of stream, or an error, counts as waiting: the read finds it.
bool TlsTransport::bytes_waiting() const {
  char byte = 0;
  return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

std::string TlsTransport::peer_address() const { return peer_address_of(fd_); }

}  // namespace sluice::transport
