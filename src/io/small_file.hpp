// Owns: reading a small file a setting names (a key, a secret, a token),
// and the check each such path gets first: that it is a regular file.
//
// A FIFO would hold its reader (a server's loop, at a reload) until some
// writer came, a device (/dev/zero, /dev/urandom) would be read without end,
// and merely opening some devices acts on them (a tape rewinds, a watchdog
// starts). So a path that is there and is not a regular file is refused
// before it is opened, and the open file is checked again, for a path
// swapped in between.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace sluice::io {

// `path` is there and is not a regular file (a directory, a FIFO, a device,
// a socket). A missing path is not: its opener names that.
[[nodiscard]] bool irregular_file(const std::string& path);

// Reads the whole of `path`, at most `max_bytes`, into `out`. Returns one
// line saying why it cannot ("PATH is not a regular file", "cannot open
// PATH: why", "PATH is larger than N bytes"), or nullopt.
[[nodiscard]] std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes,
                                                         std::string& out);

}  // namespace sluice::io
