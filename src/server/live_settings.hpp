// Owns: which settings a reload applies to a running server. A live
// setting bounds work the server starts after the reload (a request's
// size, a new connection's budgets, a new subscription's policy, whether
// the next connection or the next buffer growth fits under a shared limit,
// the next rate check, a log line) or a period a loop can re-arm, so
// taking its new value needs no memory moved, no connection dropped and no
// listener rebuilt. Every other key (listen, threads, the pool, the topic
// book's limits, the broker, the authorizer's keys and its rate table's
// size, TLS's file names) shapes what was built at start and waits for a
// restart; a reload names it and leaves it as it is.
//
// One table says which keys are live, which field each copies, and so
// what a reload names as applied or as needing a restart: the list an
// operator reads (docs/OPERATIONS.md), what the log names and what is
// applied cannot drift apart. This file is the one place that merges a
// reload's settings into the running ones.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/config_changes.hpp"
#include "sluice/config.hpp"
#include "sluice/server.hpp"

namespace sluice::server {

// Whether `key`, as a file or --set writes it, takes effect on a reload.
[[nodiscard]] bool is_live_setting(std::string_view key);
// The live keys, in the table's order; one ending in '.' stands for every
// key under it (policy.topics.PATTERN).
[[nodiscard]] std::vector<std::string_view> live_setting_keys();

// What a reload's settings, as written, change, key by key (name order).
struct SettingsChanges {
  std::vector<std::string> applied;  // live keys whose value differs from the last applied
  std::vector<std::string> restart;  // every other key whose value differs from the start's
};
// `started`: the settings the server started with; `applied`: as the last
// reload that applied them read them (`started` before any); `now`: as
// read now.
[[nodiscard]] SettingsChanges settings_changes(const SettingList& started, const SettingList& applied,
                                               const SettingList& now);

// `running` with every live setting's value taken from `read`; every other
// field keeps its running value.
[[nodiscard]] Config with_live_settings(const Config& running, const Config& read);

// Takes from `read` every live setting into the settings `server` has in
// force (the others keep their values until a restart). When the result
// does not hold together (validate()), returns the error and changes
// nothing. Else it is the new snapshot in force, handed to each of
// `server`'s loops, which takes it on its own thread when it next drains
// its inbox: what starts from then on (a request, a connection, a
// subscription, a log line) is bound by the new values; what is under way
// keeps those it started with. Any thread; a reload step may call it, and
// that reload is then reported to Server::on_reloaded once every loop has
// taken them. The limits shared by every loop (max_connections as metrics
// show it, limits.per_ip_connections, limits.server_bytes) are set at
// once, from the calling thread.
[[nodiscard]] std::optional<std::string> apply_live_settings(Server& server, const Config& read);

// Something built at start outside the loops that takes live settings too
// (the token authorizer's rates): `fn` is called with each reload's new
// settings, on the thread that applies them, before the loops take theirs.
// Before run().
void on_live_settings(Server& server, std::function<void(const Config&)> fn);

}  // namespace sluice::server
