#include "sol_request.hpp"

#include <charconv>
#include <strings.h>

namespace sluice::peers {

namespace {

std::size_t content_length(std::string_view head) {
  for (std::size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    const std::string_view line = head.substr(at + 2, head.find("\r\n", at + 2) - at - 2);
    if (line.size() > 15 && ::strncasecmp(line.data(), "content-length:", 15) == 0) {
      std::string_view value = line.substr(15);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      std::size_t n = 0;
      std::from_chars(value.data(), value.data() + value.size(), n);
      return n;
    }
  }
  return 0;
}

}  // namespace

bool read_request(std::string_view in, SolRequest& out) {
  const std::size_t end = in.find("\r\n\r\n");
  if (end == std::string_view::npos) return false;
  const std::string_view head = in.substr(0, end + 2);
  const std::size_t space = head.find(' ');
  const std::size_t space2 = head.find(' ', space + 1);
  out.method = head.substr(0, space);
  out.path = head.substr(space + 1, space2 - space - 1);
  out.size = end + 4 + content_length(head);
  return in.size() >= out.size;
}

}  // namespace sluice::peers
