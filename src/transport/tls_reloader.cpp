#include "transport/tls_reloader.hpp"

#include <utility>

namespace sluice::transport {

TlsReloader::TlsReloader(TlsServerFiles files, TlsServerOptions options)
    : files_(std::move(files)), options_(options) {}

std::optional<std::string> TlsReloader::reload() {
  std::string error;
  TlsContext fresh = make_server_context(files_, options_, error);
  if (!fresh) return error;
  std::lock_guard lock(mutex_);
  // The old context is released here, but lives on in the connections
  // made from it until the last of them closes.
  current_ = std::move(fresh);
  ++generation_;
  return std::nullopt;
}

TlsContext TlsReloader::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

std::uint64_t TlsReloader::generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

}  // namespace sluice::transport
