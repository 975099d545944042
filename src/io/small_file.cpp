#include "io/small_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace sluice::io {

bool irregular_file(const std::string& path) {
  struct stat about {};
  return !path.empty() && ::stat(path.c_str(), &about) == 0 && !S_ISREG(about.st_mode);
}

std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes, std::string& out) {
  const std::string not_regular = path + " is not a regular file";
  if (irregular_file(path)) return not_regular;
  // Without blocking: a FIFO swapped in after the check does not hold the
  // open, and the check on the open file below refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path + ": " + std::strerror(errno);
  const std::unique_ptr<FILE, int (*)(FILE*)> file(::fdopen(fd, "rb"), &std::fclose);
  if (!file) {
    ::close(fd);
    return "cannot open " + path + ": " + std::strerror(errno);
  }
  struct stat about {};
  if (::fstat(fd, &about) != 0 || !S_ISREG(about.st_mode)) return not_regular;
  out.clear();
  char chunk[4096];
  while (const std::size_t n = std::fread(chunk, 1, sizeof chunk, file.get())) {
    if (out.size() + n > max_bytes) return path + " is larger than " + std::to_string(max_bytes) + " bytes";
    out.append(chunk, n);
  }
  if (std::ferror(file.get())) return "cannot read " + path;
  return std::nullopt;
}

}  // namespace sluice::io
