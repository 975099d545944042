#include "transport/tls_error.hpp"

#include <openssl/err.h>

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
    const char* reason = ERR_reason_error_string(code);
    line.append(reason != nullptr ? reason : "unknown error");
    if (data != nullptr && (flags & ERR_TXT_STRING) != 0 && *data != '\0') line.append(" (").append(data).append(")");
  }
  ERR_clear_error();
  return line;
}

}  // namespace sluice::transport
