// Owns: the check `sluice sub` and `sluice pub` make of --cacert at start,
// so that a misspelt path is a usage error naming what is wrong (as
// --token-file's is), not a TLS failure at the first connection.
#pragma once

#include <optional>
#include <string>

namespace sluice::cli {

// Why the CA file at `path` cannot be read (missing, not a regular file,
// over 1 MiB), or nullopt; nullopt for no path (the system's CAs).
[[nodiscard]] std::optional<std::string> ca_file_problem(const std::string& path);

}  // namespace sluice::cli
