#include "transport/tls_error.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>

namespace sluice::transport {

std::string take_openssl_error(std::string_view what, std::string_view fallback) {
  const char* data = nullptr;
  int flags = 0;
  const unsigned long code = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags);
  std::string line(what);
  line.append(": ");
  if (code == 0) {
    line.append(fallback);
  } else {
    // A file OpenSSL could not open is the system's error, which it does
    // not name: "No such file or directory", not "unknown error".
    const bool system = ERR_SYSTEM_ERROR(code);
    const char* reason = system ? std::strerror(ERR_GET_REASON(code)) : ERR_reason_error_string(code);
    line.append(reason != nullptr ? reason : "unknown error");
    // A system error's data is the call that failed ("calling fopen(...)"),
    // which the line has already said in its own words.
    if (!system && data != nullptr && (flags & ERR_TXT_STRING) != 0 && *data != '\0') {
      line.append(" (").append(data).append(")");
    }
  }
  ERR_clear_error();
  return line;
}

long as_socket_result(SSL* ssl, int n) {
  if (n > 0) return n;
  switch (SSL_get_error(ssl, n)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      return errno == 0 ? 0 : -1;
    default:
      ERR_clear_error();
      errno = EPROTO;
      return -1;
  }
}

}  // namespace sluice::transport
