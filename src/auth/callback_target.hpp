// Owns: CallbackTarget, where the authorization callback's questions go
// (auth.callback_url), resolved once when the server starts so that asking
// never waits on DNS inside an event loop.
#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>
#include <string_view>

namespace sluice::auth {

struct CallbackTarget {
  sockaddr_storage address{};
  socklen_t address_size = 0;
  std::string host;    // the Host header: "host:port"
  std::string target;  // the request target: path and query
};

// Parses an http:// URL and resolves its host (blocking: call at start-up,
// never on a loop). Returns one line naming auth.callback_url and what is
// wrong with it, or nullopt. https:// is refused: the callback is meant for
// a backend on loopback or a private network, and sluice's client side has
// no TLS yet.
[[nodiscard]] std::optional<std::string> resolve_callback_url(std::string_view url, CallbackTarget& out);

}  // namespace sluice::auth
