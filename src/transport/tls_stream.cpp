#include "transport/tls_stream.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "io/arrival_stamp.hpp"
#include "transport/tls_error.hpp"

namespace sluice::transport {

namespace {

// A record's header: its type, version, and the length of what follows.
constexpr std::size_t kRecordHeader = 5;

bool is_ip_address(const std::string& host) {
  unsigned char scratch[16];
  return ::inet_pton(AF_INET, host.c_str(), scratch) == 1 || ::inet_pton(AF_INET6, host.c_str(), scratch) == 1;
}

}  // namespace

TlsStream::TlsStream(const TlsContext& context, int fd, bool http11_only) {
  if (!attach(context, fd)) return;
  SSL_set_accept_state(ssl_);
  if (http11_only) offer_http11_only(ssl_);
}

TlsStream::TlsStream(const TlsContext& context, int fd, const std::string& host) {
  if (!attach(context, fd)) return;
  SSL_set_connect_state(ssl_);
  const bool ip = is_ip_address(host);
  // SNI carries host names only (RFC 6066 3).
  if (!ip) SSL_set_tlsext_host_name(ssl_, host.c_str());
  if ((SSL_get_verify_mode(ssl_) & SSL_VERIFY_PEER) == 0) return;
  const int named = ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) : SSL_set1_host(ssl_, host.c_str());
  if (named != 1) {
    error_ = take_openssl_error("tls: cannot check the certificate against '" + host + "'");
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
}

bool TlsStream::attach(const TlsContext& context, int fd) {
  bio_.fd = fd;
  ERR_clear_error();
  ssl_ = context ? SSL_new(context.get()) : nullptr;
  BIO* bio = ssl_ != nullptr ? new_socket_bio(&bio_) : nullptr;
  if (bio == nullptr) {
    error_ = context ? take_openssl_error("tls: new connection") : "tls: no context";
    SSL_free(ssl_);
    ssl_ = nullptr;
    return false;
  }
  SSL_set_bio(ssl_, bio, bio);
  return true;
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

TlsStatus TlsStream::fail(const char* during) {
  // After a fatal error OpenSSL forbids SSL_shutdown; its alert, if any,
  // has gone out already.
  shut_ = true;
  held_ = 0;
  staging_.release();
  error_ = take_openssl_error(during);
  const long verify = SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK) error_.append(" (").append(X509_verify_cert_error_string(verify)).append(")");
  return TlsStatus::failed;
}

TlsStatus TlsStream::status_of(int result, const char* during) {
  const int saved_errno = errno;
  switch (SSL_get_error(ssl_, result)) {
    case SSL_ERROR_WANT_READ:
      return TlsStatus::want_read;
    case SSL_ERROR_WANT_WRITE:
      return TlsStatus::want_write;
    case SSL_ERROR_ZERO_RETURN:
      return TlsStatus::eof;
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() != 0) return fail(during);
      shut_ = true;
      socket_failed_ = true;
      if (saved_errno == 0) return TlsStatus::eof;
      socket_errno_ = saved_errno;
      error_ = std::string(during) + ": " + std::strerror(saved_errno);
      return TlsStatus::failed;
    default:
      return fail(during);
  }
}

TlsStatus TlsStream::handshake() {
  if (established_) return TlsStatus::ok;
  ERR_clear_error();
  const int rc = SSL_do_handshake(ssl_);
  if (rc == 1) {
    established_ = true;
    // From now on a server's read stops at each record that carries no
    // application data (see read()); the handshake itself reads on as
    // OpenSSL likes.
    if (SSL_is_server(ssl_) == 1) SSL_clear_mode(ssl_, SSL_MODE_AUTO_RETRY);
    return TlsStatus::ok;
  }
  const TlsStatus status = status_of(rc, "tls handshake");
  // An EOF in the middle of a handshake is a failure, not a clean end.
  if (status == TlsStatus::eof) {
    socket_failed_ = true;
    if (error_.empty()) error_ = "tls handshake: the peer closed the connection";
  }
  return status == TlsStatus::eof ? TlsStatus::failed : status;
}

AppProtocol TlsStream::protocol() const {
  const unsigned char* name = nullptr;
  unsigned length = 0;
  SSL_get0_alpn_selected(ssl_, &name, &length);
  return std::string_view(reinterpret_cast<const char*>(name), length) == "h2" ? AppProtocol::h2
                                                                                 : AppProtocol::http1;
}

bool TlsStream::resumed() const { return SSL_session_reused(ssl_) == 1; }

bool TlsStream::has_buffered_input() const { return SSL_has_pending(ssl_) == 1; }

// SSL_has_pending() is true for a partial record too: OpenSSL keeps its
// read buffer exactly while it holds bytes it has not handed out.
std::size_t TlsStream::buffered_bytes() const {
  std::size_t bytes = 0;
  if (ssl_ != nullptr && SSL_has_pending(ssl_) == 1) bytes += kRecordBufferEstimate;
  if (held_ > 0) bytes += kRecordBufferEstimate;
  if (staging_.held()) bytes += kMaxRecordPlaintext;
  return bytes;
}

std::size_t TlsStream::read_reserve() const {
  return ssl_ != nullptr && SSL_has_pending(ssl_) == 1 ? 0 : kRecordBufferEstimate;
}


// The length of the record waiting whole at the head of the socket (its
// header included), or 0.
std::size_t TlsStream::whole_record_waiting() const {
  if (ssl_ == nullptr || !established_ || SSL_has_pending(ssl_) == 1) return 0;
  std::array<unsigned char, kRecordHeader> header{};
  if (::recv(bio_.fd, header.data(), header.size(), MSG_PEEK | MSG_DONTWAIT) != static_cast<ssize_t>(header.size())) {
    return 0;
  }
  const std::size_t length = kRecordHeader + ((static_cast<std::size_t>(header[3]) << 8) | header[4]);
  int waiting = 0;
  if (::ioctl(bio_.fd, FIONREAD, &waiting) != 0 || static_cast<std::size_t>(waiting) < length) return 0;
  return length;
}

// The plaintext is never longer than the record, nor than a record's
// plaintext may be; a record of no plaintext needs a byte of room all the same.
std::size_t TlsStream::whole_record_plaintext() const {
  const std::size_t record = whole_record_waiting();
  return record == 0 ? 0 : std::max<std::size_t>(1, std::min(record - kRecordHeader, kMaxRecordPlaintext));
}

bool TlsStream::confine_next_read(std::size_t room) {
  const std::size_t record = whole_record_waiting();
  if (record == 0 || room < std::min(record - kRecordHeader, kMaxRecordPlaintext)) return false;
  confine_to(record);
  return true;
}

bool TlsStream::confine_next_read_to_record() {
  const std::size_t record = whole_record_waiting();
  if (record == 0) return false;
  confine_to(record);
  return true;
}

// The socket BIO gives OpenSSL no byte past the record's `length`.
void TlsStream::confine_to(std::size_t length) {
  bio_.confined = true;
  bio_.allowance = length;
}

bool TlsStream::note_arrivals() {
  bio_.stamped = bio_.stamped || io::stamp_arrivals(bio_.fd);
  return bio_.stamped;
}

bool TlsStream::unread_input(std::int64_t& arrival) const {
  if (!bio_.stamped || ssl_ == nullptr) return false;
  // Only plaintext ready to hand out: a partial record (SSL_has_pending())
  // waits for the rest of it from the socket, which tells when that came.
  // Counted, it would wait for good, and with it the verdict on an ask.
  if (SSL_pending(ssl_) > 0) {
    arrival = bio_.arrival;
    return true;
  }
  return io::peek_arrival(bio_.fd, arrival);
}

TlsStatus TlsStream::read(std::span<char> into, std::size_t& got) {
  got = 0;
  ERR_clear_error();
  const std::uint64_t received_before = bio_.counters.received;
  bio_.found_empty = false;
  const int rc = SSL_read_ex(ssl_, into.data(), into.size(), &got);
  bio_.confined = false;
  read_cost_ = bio_.counters.received - received_before;
  if (rc == 1) return TlsStatus::ok;
  TlsStatus status = status_of(0, "tls read");
  // A "retry" that did not come from an empty socket: the read ended with
  // a record that carried no application data (a key update, an alert, or
  // a confined read's record), and the socket may hold more. Such a record
  // is counted as a whole record's worth: what it costs is its handling (a
  // key derivation), not its few bytes.
  if (status == TlsStatus::want_read && !bio_.found_empty) {
    status = TlsStatus::read_again;
    read_cost_ = std::max(read_cost_, kMaxRecordPlaintext);
  }
  return status;
}

long TlsStream::writev(const struct iovec* iov, int count) {
  if (!established_ || shut_) return -ENOTCONN;
  if (held_ > 0) {
    if (const long sent = send_held(); sent < 0) return sent;
  }
  std::size_t taken = 0;
  for (;;) {
    const std::size_t staged = stage(iov, count, taken);
    if (staged == 0) break;
    taken += staged;
    held_ = staged;
    const long sent = send_held();
    // The held record's bytes count as taken: they are ours now, and go
    // out first on the next call.
    if (sent == -EAGAIN) return static_cast<long>(taken);
    if (sent < 0) return sent;
  }
  staging_.release();
  return static_cast<long>(taken);
}

// Copies up to one record of plaintext, starting `skip` bytes into the
// iovecs, into the staging buffer. Returns the bytes copied.
std::size_t TlsStream::stage(const struct iovec* iov, int count, std::size_t skip) {
  std::size_t copied = 0;
  char* out = nullptr;
  for (int i = 0; i < count && copied < kMaxRecordPlaintext; ++i) {
    const std::size_t length = iov[i].iov_len;
    if (skip >= length) {
      skip -= length;
      continue;
    }
    if (out == nullptr) out = staging_.acquire();
    const std::size_t take = std::min(length - skip, kMaxRecordPlaintext - copied);
    std::memcpy(out + copied, static_cast<const char*>(iov[i].iov_base) + skip, take);
    copied += take;
    skip = 0;
  }
  return copied;
}

// One SSL_write of the held record: the same buffer and length every time,
// as OpenSSL requires of a retry. Returns 0 once sent, -EAGAIN, or -errno.
long TlsStream::send_held() {
  ERR_clear_error();
  std::size_t written = 0;
  const int rc = SSL_write_ex(ssl_, staging_.data(), held_, &written);
  if (rc == 1) {
    held_ = 0;
    ++records_;
    return 0;
  }
  switch (status_of(rc, "tls write")) {
    case TlsStatus::want_read:
    case TlsStatus::want_write:
      return -EAGAIN;
    default:
      held_ = 0;
      staging_.release();
      return socket_errno_ != 0 ? -socket_errno_ : -EPROTO;
  }
}

TlsStatus TlsStream::shutdown() {
  if (shut_ || !established_) return TlsStatus::ok;
  ERR_clear_error();
  const int rc = SSL_shutdown(ssl_);
  if (rc >= 0) {
    shut_ = true;
    return TlsStatus::ok;
  }
  const TlsStatus status = status_of(rc, "tls shutdown");
  return status == TlsStatus::want_read ? TlsStatus::ok : status;
}

bool kernel_tls_available() {
  std::ifstream file("/proc/sys/net/ipv4/tcp_available_ulp");
  std::string word;
  while (file >> word) {
    if (word == "tls") return true;
  }
  return false;
}

}  // namespace sluice::transport
