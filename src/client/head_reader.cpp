#include "head_reader.hpp"

#include <algorithm>

namespace sluice::client::detail {

namespace {
using Clock = std::chrono::steady_clock;
}

ClientError read_head(Link& link, std::string& buffer, std::span<char> chunk, std::chrono::milliseconds timeout,
                      ResponseHead& head, std::size_t& bytes) {
  buffer.clear();
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const HeadStatus status = parse_response_head(buffer, kMaxHeadBytes, head);
    if (status == HeadStatus::complete) return {};
    if (status != HeadStatus::need_more) {
      return {.kind = ErrorKind::bad_response, .message = head_status_text(status)};
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    std::size_t got = 0;
    const IoResult r = link.read(chunk, got, std::max(left, std::chrono::milliseconds(0)));
    if (r != IoResult::ok) return io_result_error(r, link, "before the response head");
    bytes += got;
    buffer.append(chunk.data(), got);
  }
}

// Cut at the line's end and at 200 bytes, with any byte a terminal would
// act on (an escape, a carriage return) written as \xHH: a hostile server
// prints no control sequence through us.
void append_server_words(std::string& out, std::string_view words) {
  const std::string_view line = words.substr(0, std::min(words.find_first_of("\r\n"), std::size_t{200}));
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out.append({'\\', 'x', kHex[c >> 4], kHex[c & 15]});
    }
  }
}

ClientError status_error(int status, std::string_view request, std::string_view body) {
  ClientError error{.kind = ErrorKind::http_status,
                    .http_status = status,
                    .message = std::string(request) + ": the server answered " + std::to_string(status)};
  if (body.empty() || body.find_first_of("\r\n") == 0) return error;
  // sluiced's bodies begin with the status line's words ("413 Content Too
  // Large: ..."): the number is said once.
  const std::string code = std::to_string(status) + " ";
  error.message += body.starts_with(code) ? " " : ": ";
  append_server_words(error.message, body.starts_with(code) ? body.substr(code.size()) : body);
  return error;
}

}  // namespace sluice::client::detail
