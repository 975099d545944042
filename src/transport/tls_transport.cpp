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

long TlsTransport::read(char* out, std::size_t room) {
  if (!stream_.valid()) return -EPROTO;
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
