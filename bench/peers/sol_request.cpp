#include "sol_request.hpp"

#include <charconv>
#include <strings.h>

namespace sluice::peers {

namespace {

// The value of header `name` (given with its colon) in `head`, empty when absent.
std::string_view header(std::string_view head, std::string_view name) {
  for (std::size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    const std::string_view line = head.substr(at + 2, head.find("\r\n", at + 2) - at - 2);
    if (line.size() > name.size() && ::strncasecmp(line.data(), name.data(), name.size()) == 0) {
      std::string_view value = line.substr(name.size());
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
      return value;
    }
  }
  return {};
}

std::size_t content_length(std::string_view head) {
  const std::string_view value = header(head, "content-length:");
  std::size_t n = 0;
  std::from_chars(value.data(), value.data() + value.size(), n);
  return n;
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
  out.ws_key = header(head, "sec-websocket-key:");
  out.size = end + 4 + content_length(head);
  if (in.size() < out.size) return false;
  out.body = in.substr(end + 4, out.size - end - 4);
  return true;
}

}  // namespace sluice::peers
