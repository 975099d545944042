#include "auth/secret_file.hpp"

#include "auth/key_ring.hpp"
#include "io/small_file.hpp"

namespace sluice::auth {

std::optional<std::string> read_secret_file(const std::string& path, std::string& secret) {
  std::string text;
  if (auto error = io::read_small_file(path, kMaxKeyFileBytes, text)) return error;
  secret = text.substr(0, text.find_first_of("\r\n"));
  while (!secret.empty() && (secret.back() == ' ' || secret.back() == '\t')) secret.pop_back();
  if (secret.empty()) return path + ": nothing on its first line";
  return std::nullopt;
}

}  // namespace sluice::auth
