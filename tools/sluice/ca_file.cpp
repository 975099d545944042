#include "ca_file.hpp"

#include "io/small_file.hpp"

namespace sluice::cli {

std::optional<std::string> ca_file_problem(const std::string& path) {
  if (path.empty()) return std::nullopt;
  constexpr std::size_t kMaxCaFileBytes = 1 << 20;
  std::string pem;
  return io::read_small_file(path, kMaxCaFileBytes, pem);
}

}  // namespace sluice::cli
