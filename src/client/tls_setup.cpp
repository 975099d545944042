#include "tls_setup.hpp"

#include <string>
#include <vector>

namespace sluice::client::detail {

ClientError make_tls_context(const Url& url, const TlsOptions& options, bool offer_h2, transport::TlsContext& out) {
  out = {};
  if (!url.tls) return {};
  std::vector<std::string> alpn = {"http/1.1"};
  if (offer_h2) alpn.insert(alpn.begin(), "h2");
  std::string error;
  out = transport::make_client_context({.ca_file = options.ca_file, .verify = !options.insecure, .alpn = alpn},
                                       error);
  if (!out) return {.kind = ErrorKind::tls, .fatal = true, .message = error};
  return {};
}

}  // namespace sluice::client::detail
