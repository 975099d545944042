// Owns: how `sluice sub` and `sluice pub` read a bearer token from a file
// (--token-file). The file is read whenever a token is needed, so whatever
// renews it (a cron job, a sidecar) renews the client's credentials
// without a restart.
#pragma once

#include <string>

namespace sluice::cli {

// The file's first line without its line end or trailing spaces; empty
// when the file cannot be read (the server then answers 401).
[[nodiscard]] std::string read_token_file(const std::string& path);

// True when `path` can be opened for reading now: checked once at start,
// so that a misspelt path is a usage error rather than a stream of 401s.
[[nodiscard]] bool token_file_readable(const std::string& path);

}  // namespace sluice::cli
