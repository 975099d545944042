#include "bearer_token.hpp"

namespace sluice::client::detail {

bool fits_a_header(std::string_view token) {
  for (const char c : token) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

ClientError unfit_token() {
  return {.kind = ErrorKind::bad_token, .fatal = true, .message = "the token holds a control character; not sent"};
}

}  // namespace sluice::client::detail
