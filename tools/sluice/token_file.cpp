#include "token_file.hpp"

#include "auth/secret_file.hpp"

namespace sluice::cli {

// Read as a secret file is (at most auth::kMaxKeyFileBytes): a path given
// by mistake (a log, /dev/zero) costs a bounded read, not memory without end.
std::string read_token_file(const std::string& path) {
  std::string token;
  if (auth::read_secret_file(path, token)) return {};
  return token;
}

std::optional<std::string> token_file_problem(const std::string& path) {
  std::string token;
  return auth::read_secret_file(path, token);
}

}  // namespace sluice::cli
