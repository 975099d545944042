// Owns: TlsTransport, the Transport of a connection accepted on a TLS
// port: the socket (closed when the transport goes) and the TlsStream over
// it. The connection above reads and writes exactly as over plain TCP; the
// handshake is moved on by the reads, and a flush's gather list becomes
// full records (TlsStream::writev), so batching survives encryption.
//
// What it protects against: a client that opens a connection and never
// finishes its handshake holds one connection slot (max_connections) and
// the SSL object's few KiB until the owner's deadline
// (tls.handshake_timeout_ms) closes it; a client that speaks anything but
// TLS fails the handshake at its first bytes and is closed. One that sends
// a plain HTTP request (http:// to an https:// port, a frequent mistake) is
// first told so in plain HTTP, a 400 naming the scheme to use, where a bare
// close would leave it with "connection reset".
#pragma once

#include "transport/tls_stream.hpp"
#include "conn/transport.hpp"

namespace sluice::transport {

class TlsTransport final : public conn::Transport {
 public:
  // Takes `fd` (non-blocking, accepted) and closes it when destroyed. An
  // empty `context` makes a transport whose first read fails.
  // `http11_only`: ALPN never chooses h2 here (the admin listener).
  TlsTransport(const TlsContext& context, int fd, bool http11_only = false);
  ~TlsTransport() override;
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  [[nodiscard]] int fd() const override { return fd_; }
  // Moves the handshake on first; then decrypts. -EPROTO for a TLS failure
  // (a client that is not speaking TLS, a malformed record), 0 at the
  // peer's end (close_notify or a bare EOF).
  [[nodiscard]] long read(char* out, std::size_t room) override;
  // TlsStream::read_cost(): the bytes taken from the socket, and a whole
  // record for one that carried no data (-EINTR).
  [[nodiscard]] std::size_t read_cost() const override { return stream_.read_cost(); }
  // Noted as the socket's bytes come in, records whole or not: no earlier
  // than the record a read returns.
  bool note_arrivals() override { return stream_.note_arrivals(); }
  [[nodiscard]] std::int64_t last_arrival() const override { return stream_.last_arrival(); }
  [[nodiscard]] bool unread_input(std::int64_t& arrival) override { return stream_.unread_input(arrival); }
  // TlsStream::writev: whole records of the gathered frames.
  [[nodiscard]] long writev(const struct iovec* iov, int count) override { return stream_.writev(iov, count); }
  // close_notify (when the socket takes it), then shutdown(SHUT_WR).
  int shutdown_write() override;
  [[nodiscard]] std::string peer_address() const override;

  [[nodiscard]] bool handshaking() const override { return !stream_.established(); }
  [[nodiscard]] bool read_wants_writable() const override { return read_wants_writable_; }
  [[nodiscard]] bool holds_output() const override { return stream_.holds_output(); }
  [[nodiscard]] bool chose_h2() const override {
    return stream_.established() && stream_.protocol() == AppProtocol::h2;
  }
  // The record buffers held now (TlsStream::buffered_bytes(), an estimate).
  [[nodiscard]] std::size_t held_bytes() const override { return stream_.buffered_bytes(); }
  [[nodiscard]] std::size_t most_held() const override { return kMostBuffered; }
  // A record buffer, unless one is held already. None while handshaking:
  // the handshake's buffers are the idle connection's fixed cost.
  [[nodiscard]] std::size_t read_reserve() const override {
    return handshaking() ? 0 : stream_.read_reserve();
  }
  // TlsStream::confine_next_read(): a whole record waits and fits.
  [[nodiscard]] bool confine_read(std::size_t room) override { return stream_.confine_next_read(room); }
  [[nodiscard]] std::size_t confinable_room() const override { return stream_.whole_record_plaintext(); }
  // TlsStream::confine_next_read_to_record(): a whole record waits.
  [[nodiscard]] bool confine_read_keeping_rest() override { return stream_.confine_next_read_to_record(); }
  // A byte (or the end of the stream) waits in the socket.
  [[nodiscard]] bool bytes_waiting() const override;

  // The stream, for the figures (records and system calls) and the SSL object.
  [[nodiscard]] const TlsStream& stream() const { return stream_; }

 private:
  long status_to_result(TlsStatus status);
  // The first bytes are a plain HTTP request's: answered 400 in clear.
  bool answered_plain_http();

  int fd_;
  TlsStream stream_;
  bool read_wants_writable_ = false;
  bool first_bytes_seen_ = false;
};

}  // namespace sluice::transport
