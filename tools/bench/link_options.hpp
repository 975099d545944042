// Owns: LinkOptions, the shape of an emulated link (rate, one-way delay,
// receive window), and its textual form "rate=3mbit,delay=20ms,window=5760"
// used by --link on every scenario and by the `link` subcommand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

struct LinkOptions {
  double rate = 0;              // bytes/s in each direction; 0: unlimited
  std::uint64_t delay_ns = 0;   // added one-way delay
  std::size_t window = 0;       // bytes in flight on the link per direction; 0: 4 MiB
  // Server to client, carry no more than the client's window has room for
  // (client=shallow), so a slow reader's full buffer shows to the server;
  // by default the emulator reads the server as fast as its window lets it.
  bool shallow = false;
};

inline constexpr std::size_t kDefaultLinkWindow = std::size_t{4} << 20;

// Parses "rate=R,delay=D,window=W,client=shallow" in any order, each optional. R takes
// bit/s with k/m/g suffix and "bit" ("3mbit", "500kbit") or bytes/s with
// "B" ("1MB"); D takes "us", "ms" or "s"; W takes bytes with k/m suffix
// ("5760", "64k"). Returns an error line, or "" when the spec is valid.
[[nodiscard]] std::string parse_link(std::string_view spec, LinkOptions& out);

// "3.0 Mbit/s, 20 ms, window 5760 B", for reports.
[[nodiscard]] std::string describe_link(const LinkOptions& link);

}  // namespace sluice::bench
