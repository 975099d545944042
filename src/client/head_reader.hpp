// Owns: read_head(), which reads a response head off a Link within a
// deadline, and the errors a client reports about a head it cannot use.
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string>

#include "link.hpp"
#include "response_head.hpp"
#include "sluice/client/status.hpp"

namespace sluice::client::detail {

// Bytes a response head may take; a longer one is refused.
inline constexpr std::size_t kMaxHeadBytes = 16384;

// Reads into `buffer` (cleared first) through `chunk` until it holds a whole
// head, which is parsed into `head` (views into `buffer`; the bytes after
// the head stay in `buffer`). `bytes` grows by what was read.
// Errors: bad_response (not HTTP, malformed, too long), and those of
// io_result_error() (closed, idle_timeout for the deadline, io_error, aborted).
[[nodiscard]] ClientError read_head(Link& link, std::string& buffer, std::span<char> chunk,
                                    std::chrono::milliseconds timeout, ResponseHead& head, std::size_t& bytes);

// The error for a status the client did not want: "GET /x: the server
// answered 404", then ": " and the first line of `body` (what of the reply's
// body has come; sluice says there why, naming the key of a limit), its
// bytes outside printable ASCII written as \xHH. The caller passes no body
// it cannot read as sent (chunked).
[[nodiscard]] ClientError status_error(int status, std::string_view request, std::string_view body = {});
// Appends the first line of the server's `words` as status_error() does.
void append_server_words(std::string& out, std::string_view words);

}  // namespace sluice::client::detail
