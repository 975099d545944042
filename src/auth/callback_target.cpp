#include "auth/callback_target.hpp"

#include <netdb.h>

#include <cstring>

#include "sluice/client/url.hpp"

namespace sluice::auth {

namespace {

std::string url_error(std::string_view why) { return "config key 'auth.callback_url': " + std::string(why); }

}  // namespace

std::optional<std::string> resolve_callback_url(std::string_view url, CallbackTarget& out) {
  client::Url parsed;
  std::string why;
  if (!client::parse_url(url, parsed, why)) return url_error(why);
  // https:// parses as http with tls set: refused the same way.
  if (parsed.scheme != client::Scheme::http || parsed.tls) return url_error("must be an http:// URL");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(parsed.port);
  if (const int rc = ::getaddrinfo(parsed.host.c_str(), port.c_str(), &hints, &found); rc != 0 || found == nullptr) {
    return url_error("cannot resolve '" + parsed.host + "': " + ::gai_strerror(rc));
  }
  std::memcpy(&out.address, found->ai_addr, found->ai_addrlen);
  out.address_size = found->ai_addrlen;
  ::freeaddrinfo(found);
  out.host = parsed.authority();
  out.target = parsed.target;
  return std::nullopt;
}

}  // namespace sluice::auth
