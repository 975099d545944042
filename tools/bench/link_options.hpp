// Owns: LinkOptions, the shape of an emulated link (rate, one-way delay,
// receive window or bottleneck queue, and which emulator carries it), and
// its textual form "rate=3mbit,delay=20ms,window=5760" used by --link on
// every scenario and by the `link` subcommand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

// Which emulator carries the link. The TCP proxy (link_proxy.hpp) ends the
// server's TCP connection in the bench: what it holds in its pipe is
// acknowledged to the server. The packet link (packet_link.hpp) forwards
// IP packets between two network namespaces, so TCP runs end to end and
// bytes on the link are unacknowledged at the server, as on a real link.
enum class LinkMode { proxy, packet };

struct LinkOptions {
  double rate = 0;              // bytes/s in each direction; 0: unlimited
  std::uint64_t delay_ns = 0;   // added one-way delay
  std::size_t window = 0;       // bytes in flight on the link per direction; 0: 4 MiB
  // Server to client, carry no more than the client's window has room for
  // (client=shallow), so a slow reader's full buffer shows to the server;
  // by default the emulator reads the server as fast as its window lets it.
  bool shallow = false;
  LinkMode mode = LinkMode::proxy;
  // Packet link: bytes waiting at the bottleneck for their turn at the
  // rate, per direction, beyond which a packet is dropped; 0: the default.
  std::size_t queue = 0;
};

inline constexpr std::size_t kDefaultLinkWindow = std::size_t{4} << 20;
// About 175 ms at 3 Mbit/s: a modest router's buffer.
inline constexpr std::size_t kDefaultLinkQueue = std::size_t{64} << 10;

// Parses "rate=R,delay=D,window=W,client=shallow,mode=M,queue=Q" in any
// order, each optional. R takes bit/s with k/m/g suffix and "bit" ("3mbit",
// "500kbit") or bytes/s with "B" ("1MB"); D takes "us", "ms" or "s"; W and
// Q take bytes with k/m suffix ("5760", "64k"); M is proxy (the default) or
// packet. window= and client= shape the proxy, queue= the packet link; each
// is refused with the other mode. Returns an error line, or "" when the
// spec is valid.
[[nodiscard]] std::string parse_link(std::string_view spec, LinkOptions& out);

// "3.00 Mbit/s, 20.0 ms one way, window 5760 B", for reports, and which
// emulator carries it.
[[nodiscard]] std::string describe_link(const LinkOptions& link);

}  // namespace sluice::bench
