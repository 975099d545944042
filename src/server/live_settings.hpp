// Owns: which settings a reload applies to a running server. A live
// setting bounds work the server starts after the reload (a request's
// size, a new connection's budgets, a new subscription's policy, whether
// the next connection or the next buffer growth fits under a shared limit,
// the next rate check, a log line) or a period a loop can re-arm, so
// taking its new value needs no memory moved, no connection dropped and no
// listener rebuilt; the token authorizer's keys and claim rules are built
// anew beside the running ones and swapped in whole. Every other key
// (listen, threads, the pool, the topic book's limits, the broker, the
// authorizer's other settings and its rate table's size, TLS's file names)
// shapes what was built at start and waits for a restart; a reload names
// it and leaves it as it is.
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
// does not hold together (validate()), or what it names does not load (a
// LiveSettingsHook's prepare), returns the error and changes nothing.
// Else it is the new snapshot in force, handed to each of `server`'s
// loops, which takes it on its own thread when it next drains its inbox: what starts from then on (a request, a connection, a
// subscription, a log line) is bound by the new values; what is under way
// keeps those it started with. Any thread; a reload step may call it, and
// that reload is then reported to Server::on_reloaded once every loop has
// taken them. The limits shared by every loop (max_connections as metrics
// show it, limits.per_ip_connections, limits.server_bytes) are set at
// once, from the calling thread.
[[nodiscard]] std::optional<std::string> apply_live_settings(Server& server, const Config& read);

// Something built at start outside the loops that takes live settings too
// (the token authorizer's keys, claim rules and rates), in two steps so
// that a reload whose files do not load changes nothing: `prepare` reads
// what the new settings name that may fail to load (key files, read again
// on every reload even under the same name, so a file rotated in place is
// taken) and keeps it aside, or returns one line naming the key at fault;
// `apply` puts what it kept in force and cannot fail. Both run on the
// thread that applies the reload, `prepare` before anything is applied,
// `apply` before the loops take their settings.
struct LiveSettingsHook {
  std::function<std::optional<std::string>(const Config&)> prepare;
  std::function<void(const Config&)> apply;
};
// Before run().
void on_live_settings(Server& server, LiveSettingsHook hook);

}  // namespace sluice::server
