#include "transport/tls_socket_bio.hpp"

#include <openssl/bio.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "io/arrival_stamp.hpp"

namespace sluice::transport {

namespace {

SocketBioState& state_of(BIO* bio) { return *static_cast<SocketBioState*>(BIO_get_data(bio)); }

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

int bio_write(BIO* bio, const char* data, int length) {
  BIO_clear_retry_flags(bio);
  SocketBioState& state = state_of(bio);
  for (;;) {
    ++state.counters.sends;
    const ssize_t n = ::send(state.fd, data, static_cast<std::size_t>(length), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (would_block(errno)) BIO_set_retry_write(bio);
    return -1;
  }
}

// As recv() returns: -1 with errno set on failure.
ssize_t receive_stamped(SocketBioState& state, char* out, std::size_t want) {
  const long n = io::recv_stamped(state.fd, out, want, state.arrival);
  if (n >= 0) return n;
  errno = static_cast<int>(-n);
  return -1;
}

int bio_read(BIO* bio, char* out, int length) {
  BIO_clear_retry_flags(bio);
  SocketBioState& state = state_of(bio);
  std::size_t want = static_cast<std::size_t>(length);
  if (state.confined) {
    if (state.allowance == 0) {
      BIO_set_retry_read(bio);
      return -1;
    }
    want = std::min(want, state.allowance);
  }
  for (;;) {
    ++state.counters.recvs;
    const ssize_t n = state.stamped ? receive_stamped(state, out, want) : ::recv(state.fd, out, want, MSG_DONTWAIT);
    if (n > 0) {
      state.counters.received += static_cast<std::size_t>(n);
      if (state.confined) state.allowance -= static_cast<std::size_t>(n);
    }
    if (n == 0) state.peer_ended = true;
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (would_block(errno)) {
      state.found_empty = true;
      BIO_set_retry_read(bio);
    }
    return -1;
  }
}

int bio_puts(BIO* bio, const char* text) {
  int length = 0;
  while (text[length] != '\0' && length < INT_MAX) ++length;
  return bio_write(bio, text, length);
}

// Writes go straight to the socket, so there is never anything to flush;
// the end of the stream is the peer's FIN (SocketBioState::peer_ended);
// every other control (kernel TLS queries included) is unsupported.
long bio_ctrl(BIO* bio, int command, long /*number*/, void* /*pointer*/) {
  if (command == BIO_CTRL_FLUSH) return 1;
  if (command == BIO_CTRL_EOF) return state_of(bio).peer_ended ? 1 : 0;
  return 0;
}

int bio_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

const BIO_METHOD* socket_method() {
  // Built once, kept for the life of the process.
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "sluice socket");
    if (m == nullptr) return m;
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_puts(m, bio_puts);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    return m;
  }();
  return method;
}

}  // namespace

BIO* new_socket_bio(SocketBioState* state) {
  const BIO_METHOD* method = socket_method();
  if (method == nullptr) return nullptr;
  BIO* bio = BIO_new(method);
  if (bio != nullptr) BIO_set_data(bio, state);
  return bio;
}

}  // namespace sluice::transport
