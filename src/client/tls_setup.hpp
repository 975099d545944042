// Owns: the TLS context a client connects with: built once per client from
// its TlsOptions and the application protocols it offers (ALPN), with the
// server's chain and name checked unless the options explicitly say not.
#pragma once

#include "sluice/client/options.hpp"
#include "sluice/client/status.hpp"
#include "sluice/client/url.hpp"
#include "transport/tls_context.hpp"

namespace sluice::client::detail {

// Builds `out` for `url` (left empty for http:// and ws://). `offer_h2`
// offers "h2" before "http/1.1". Errors: tls, fatal (a CA file that cannot
// be read, naming it).
[[nodiscard]] ClientError make_tls_context(const Url& url, const TlsOptions& options, bool offer_h2,
                                           transport::TlsContext& out);

}  // namespace sluice::client::detail
