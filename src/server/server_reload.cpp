// Server's reload path: TLS loaded at bind(), and read again with every
// other reload step on request (SIGHUP in sluiced). The request only
// touches an eventfd; the reading happens on loop 0. Live settings go to
// every loop through its inbox, and the reload is reported once all have
// taken them.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>

#include "server/live_settings.hpp"
#include "server/memory_shares.hpp"
#include "server/server_impl.hpp"

namespace sluice::server {

namespace {

transport::TlsServerFiles tls_files(const TlsConfig& tls) { return {tls.cert_file, tls.key_file, tls.chain_file}; }

// Under in_force_mutex: no other reload stores meanwhile.
void narrow_to(std::atomic<std::size_t>& limit, std::size_t value) {
  if (value < limit.load(std::memory_order_relaxed)) limit.store(value, std::memory_order_relaxed);
}

}  // namespace

std::unique_ptr<transport::TlsReloader> make_tls_reloader(const Config& config) {
  if (!config.tls.enabled()) return nullptr;
  // ALPN: h2 then http/1.1; with h2.enabled = 0 a client offering both is
  // answered with http/1.1, one offering only h2 gets a
  // no_application_protocol alert.
  const transport::TlsServerOptions options{.offer_h2 = config.h2.enabled != 0,
                                            .tls13_only = config.tls.min_version >= 13};
  return std::make_unique<transport::TlsReloader>(tls_files(config.tls), options);
}

bool load_tls(Server::Impl& impl) {
  if (!impl.tls || impl.tls->generation() > 0) return true;
  if (auto error = impl.tls->reload()) {
    impl.bind_error = *error;
    return false;
  }
  return true;
}

std::vector<std::string> reload_now(Server::Impl& s) {
  const std::lock_guard lock(s.reload_mutex);
  std::vector<std::string> failures;
  if (s.tls) {
    if (auto error = s.tls->reload()) failures.push_back(std::move(*error));
  }
  for (const auto& step : s.reload_steps) {
    if (auto error = step()) failures.push_back(std::move(*error));
  }
  return failures;
}

void run_requested_reload(Server::Impl& s) {
  std::vector<std::string> failures = reload_now(s);
  s.unreported.insert(s.unreported.end(), failures.begin(), failures.end());
  s.report_waiting = true;
  report_settings_taken(s);
}

void report_settings_taken(Server::Impl& s) {
  if (!s.report_waiting || s.loops_taking.load(std::memory_order_acquire) != 0) return;
  s.report_waiting = false;
  const std::vector<std::string> failures = std::exchange(s.unreported, {});
  if (s.on_reloaded) s.on_reloaded(failures);
}

std::optional<std::string> apply_live_settings(Server& server, const Config& read) {
  Server::Impl& s = impl_of(server);
  // Held from the merge to the last loop's hand-over: two reloads on two
  // threads (Server::reload is any thread's) each merge onto what the
  // other put in force, and the loops take them in the same order.
  const std::lock_guard lock(s.in_force_mutex);
  auto next = std::make_shared<const Config>(with_live_settings(*s.in_force, read));
  // The server with the new values must hold together (the pool it keeps
  // must still hold what the new limits allow).
  if (auto error = validate(*next)) return error;
  for (const LiveSettingsHook& hook : s.live_setting_hooks) {
    if (!hook.prepare) continue;
    if (auto error = hook.prepare(*next)) return error;
  }
  s.in_force = next;
  // Only ever narrowed (see Server::Impl::send_max_frames).
  narrow_to(s.send_max_frames, next->connection.send.max_frames);
  narrow_to(s.send_max_bytes, next->connection.send.max_bytes);
  s.logger.set_level(log::parse_level(next->ops.log_level).value_or(log::Level::info));
  s.logger.set_access(next->ops.log_access != 0);
  s.ops.set_connections_limit(next->max_connections);
  s.address_limit.set_max(next->per_ip_connections);
  s.memory_cap.set_limit(static_cast<std::size_t>(next->server_memory_bytes), tls_record_reserve(*next));
  for (const LiveSettingsHook& hook : s.live_setting_hooks) {
    if (hook.apply) hook.apply(*next);
  }
  s.loops_taking.fetch_add(s.workers.size(), std::memory_order_acq_rel);
  for (const auto& worker : s.workers) {
    worker->reconfigure(next, [&s] {
      if (s.loops_taking.fetch_sub(1, std::memory_order_acq_rel) == 1) s.settings_taken.fire();
    });
  }
  return std::nullopt;
}

void on_live_settings(Server& server, LiveSettingsHook hook) {
  impl_of(server).live_setting_hooks.push_back(std::move(hook));
}

std::vector<std::string> Server::reload() { return reload_now(*impl_); }

void Server::request_reload() { impl_->reload_trigger.fire(); }

void Server::on_reload(std::function<std::optional<std::string>()> step) {
  impl_->reload_steps.push_back(std::move(step));
}

void Server::on_reloaded(std::function<void(const std::vector<std::string>&)> fn) {
  impl_->on_reloaded = std::move(fn);
}

const std::string& Server::bind_error() const { return impl_->bind_error; }

}  // namespace sluice::server
