// Owns: how `sluice sub` and `sluice pub` read a bearer token from a file
// (--token-file). The file is read whenever a token is needed, so whatever
// renews it (a cron job, a sidecar) renews the client's credentials
// without a restart.
#pragma once

#include <optional>
#include <string>

namespace sluice::cli {

// The file's first line without its line end or trailing spaces; empty
// when the file cannot be read (the server then answers 401).
[[nodiscard]] std::string read_token_file(const std::string& path);

// Why `path` gives no token now (it cannot be opened, is not a regular
// file, is too large, or has nothing on its first line), or nullopt:
// checked once at start, so that a misspelt path is a usage error naming
// what is wrong rather than a stream of 401s.
[[nodiscard]] std::optional<std::string> token_file_problem(const std::string& path);

}  // namespace sluice::cli
