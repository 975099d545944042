// Owns: reading a secret kept in a file (a JWT signing secret, a bearer
// token), so that it is never written on a command line, where every user
// of the machine can read it from the process list.
#pragma once

#include <optional>
#include <string>

namespace sluice::auth {

// The secret a file holds on its first line, trailing blanks and the line's
// end cut (how `openssl rand -hex 32 > file` leaves it). Returns why there
// is none (the file is not a regular file, cannot be read, is over 1 MiB,
// or its first line is empty), or nullopt.
[[nodiscard]] std::optional<std::string> read_secret_file(const std::string& path, std::string& secret);

}  // namespace sluice::auth
