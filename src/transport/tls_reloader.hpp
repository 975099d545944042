// Owns: TlsReloader, the server context every loop takes for its new
// connections, and its replacement when the certificate and key are read
// again (SIGHUP) without dropping a connection.
//
// A reload builds a whole new context first and swaps it in only if that
// worked: a half-written or mismatched certificate on disk leaves the
// server serving the old one, and the reason is one line for the log.
// Connections already open keep the context they were made with (each SSL
// holds a reference), so nothing is cut and nothing re-handshakes.
//
// Thread-safe: loops call current() as they accept; reload() from any
// thread. The lock is held only to copy one pointer and count a reference,
// never around a handshake or a read.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "transport/tls_context.hpp"

namespace sluice::transport {

class TlsReloader {
 public:
  TlsReloader(TlsServerFiles files, TlsServerOptions options);

  // Reads the files (the first call loads them, later ones reload). On
  // success new connections get the new context; on failure the current
  // one, if any, stays. Returns the error line, or nullopt.
  [[nodiscard]] std::optional<std::string> reload();

  // The context for a connection accepted now (empty before a load).
  [[nodiscard]] TlsContext current() const;
  // Successful loads so far: a loop may cache current() and look again only
  // when this moves.
  [[nodiscard]] std::uint64_t generation() const;

 private:
  const TlsServerFiles files_;
  const TlsServerOptions options_;
  mutable std::mutex mutex_;
  TlsContext current_;
  std::uint64_t generation_ = 0;
};

}  // namespace sluice::transport
