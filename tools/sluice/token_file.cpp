#include "token_file.hpp"

#include <fstream>

namespace sluice::cli {

std::string read_token_file(const std::string& path) {
  std::ifstream file(path);
  std::string token;
  std::getline(file, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

bool token_file_readable(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

}  // namespace sluice::cli
