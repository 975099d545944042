#include "token_file.hpp"

#include <fstream>

#include "auth/key_ring.hpp"

namespace sluice::cli {

// Read as a secret file is (at most auth::kMaxKeyFileBytes): a path given
// by mistake (a log, /dev/zero) costs a bounded read, not memory without end.
std::string read_token_file(const std::string& path) {
  std::string token;
  if (auth::read_secret_file(path, token)) return {};
  return token;
}

bool token_file_readable(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

}  // namespace sluice::cli
