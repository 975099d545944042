// Owns: the Host allow-list (http.allowed_hosts) and how a request's Host
// (HTTP/1.1) or :authority (HTTP/2) is judged against it, before any route.
//
// What it protects against: DNS rebinding. A page on a site the attacker
// controls (evil.example) is loaded in the browser of someone who runs
// sluiced on their own machine; the attacker then points evil.example at
// 127.0.0.1. To the browser the page and sluiced are now the same origin,
// so the page may read streams and publish, and the Origin check sees an
// Origin that names the very Host the request was sent to. The one thing
// the attacker cannot change is the name the browser puts in Host: it is
// evil.example, never a name sluiced answers to. So a server that answers
// only to its own names is out of the page's reach.
//
// An entry is `*` (any Host), a name or address (any port: `localhost`,
// `127.0.0.1`, `[::1]`, `push.example.com`), or NAME:PORT (that port only).
// Names compare without case and without a final dot. A request with no
// Host at all is not judged: every browser sends one, so it is not a page
// at work, and HTTP/1.0 clients may leave it out.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::session {

// Whether `entry` is a well-formed http.allowed_hosts entry.
[[nodiscard]] bool valid_host_entry(std::string_view entry);

// Whether a request whose Host is `host` may be served. An empty `allowed`
// lets every Host through (the list was `*`, or none is in force).
[[nodiscard]] bool host_allowed(std::string_view host, std::span<const std::string_view> allowed);

// Whether `host` (a listen address's host part) is a loopback address or name.
[[nodiscard]] bool loopback_name(std::string_view host);

// The list in force: `configured` when it has entries (none when one of
// them is `*`); else, for a server that listens on loopback only and has no
// authorizer, the loopback names (localhost, 127.0.0.1, [::1]) and the
// listen addresses' hosts (`listen_hosts`); else none. Without credentials
// and on loopback, the local machine's browser is the only way in, and
// DNS rebinding is how a remote page would take it.
[[nodiscard]] std::vector<std::string> hosts_in_force(const std::vector<std::string>& configured,
                                                      std::span<const std::string_view> listen_hosts,
                                                      bool authorizing);

}  // namespace sluice::session
