#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/auth_setup.hpp"
#include "server/cli.hpp"
#include "server/config_changes.hpp"
#include "server/live_settings.hpp"
#include "sluice/config.hpp"
#include "sluice/server.hpp"

namespace {

sluice::server::Server* g_server = nullptr;

extern "C" void on_stop_signal(int) {
  if (g_server != nullptr) g_server->stop();
}

// Only asks: the reload itself runs on loop 0 (Server::request_reload).
extern "C" void on_reload_signal(int) {
  if (g_server != nullptr) g_server->request_reload();
}

// First thing at start: a reload asked for before the server is up (a
// `systemctl reload` racing the start) finds nothing to reload and is
// ignored, rather than ending the process as SIGHUP does by default.
void install_reload_handler() {
  struct sigaction action {};
  action.sa_handler = on_reload_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGHUP, &action, nullptr);
}

// Once the server is up: SIGINT and SIGTERM drain it (before that they end
// the process, which has nothing to drain yet).
void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

// One line per reload, so an operator (and a test) can tell it happened:
// on standard error, with the log, where a start's failure goes too.
void report_reload(const std::vector<std::string>& failures) {
  if (failures.empty()) std::fprintf(stderr, "sluiced: reloaded\n");
  for (const std::string& failure : failures) {
    std::fprintf(stderr, "sluiced: reload failed, kept the old value: %s\n", failure.c_str());
  }
}

// " a b c" for a log line.
std::string key_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) out += " " + key;
  return out;
}

// A reload step: the config file and --set read again and checked as at
// start. The live settings (live_settings.hpp) are applied, and those
// whose value changed since the last reload named; every other key whose value
// differs from what the server started with is named as needing a restart
// and keeps its running value. A file that no longer reads or checks, or
// whose live values do not hold together with the running server, is the
// reload's failure, reported as such, and nothing of it is applied.
class SettingsReload {
 public:
  SettingsReload(sluice::server::Server& server, std::string path, std::vector<std::string> sets,
                 sluice::server::SettingList started)
      : server_(server),
        path_(std::move(path)),
        sets_(std::move(sets)),
        started_(std::move(started)),
        applied_(started_) {}

  std::optional<std::string> operator()() {
    sluice::server::SettingList now;
    if (auto error = sluice::server::read_setting_list(path_, sets_, now)) return error;
    sluice::server::Config read;
    for (const auto& [key, value] : now) {
      if (auto error = sluice::server::apply_setting(read, key, value)) return error;
    }
    if (auto error = sluice::server::validate(read)) return error;
    if (auto error = sluice::server::check_auth_settings(read)) return error;
    const sluice::server::SettingsChanges changes = sluice::server::settings_changes(started_, applied_, now);
    // Applied even when no live key changed: the files they name (the
    // authorizer's keys) are read again on every reload, so one rotated
    // in place under the same name is taken.
    if (auto error = sluice::server::apply_live_settings(server_, read)) return error;
    if (!changes.restart.empty()) {
      std::fprintf(stderr, "sluiced: reload: needs restart, not applied:%s\n", key_list(changes.restart).c_str());
    }
    if (!changes.applied.empty()) {
      std::fprintf(stderr, "sluiced: reload: applied:%s\n", key_list(changes.applied).c_str());
    }
    applied_ = std::move(now);
    return std::nullopt;
  }

 private:
  sluice::server::Server& server_;
  std::string path_;
  std::vector<std::string> sets_;
  sluice::server::SettingList started_;  // what every restart-only key keeps
  sluice::server::SettingList applied_;  // the live keys as last applied
};

int fail(const std::string& message) {
  std::fprintf(stderr, "sluiced: %s\n", message.c_str());
  return 2;
}

// A key set on one command line both by its own flag and by --set: which
// was meant cannot be told, so neither is taken on a guess.
std::optional<std::string> set_twice(const std::vector<std::string>& settings, const std::string& flag_value,
                                     std::string_view flag, std::string_view key) {
  if (flag_value.empty()) return std::nullopt;
  for (const std::string& setting : settings) {
    if (std::string_view(setting).substr(0, setting.find('=')) == key) {
      return std::string(flag) + " and --set " + std::string(key) + "= both set '" + std::string(key) +
             "': give one";
    }
  }
  return std::nullopt;
}

}  // namespace

namespace sluice::server {

int run_sluiced(int argc, char** argv, const std::function<void(Server&)>& prepare) {
  install_reload_handler();
  CLI::App app{"sluiced: real-time push over Server-Sent Events and WebSocket, with bounded memory and latency"};
  std::string listen;
  std::string config_path;
  std::vector<std::string> settings;
  std::string threads;
  std::string broker;
  bool help_config = false;
  app.add_option("--listen", listen, "HOST:PORT to listen on (default 127.0.0.1:8080; port 0 picks one)")
      ->type_name("HOST:PORT");
  app.add_option("--threads", threads, "event loops, one thread each (default: one per core)")->type_name("N");
  app.add_option("--broker", broker,
                 "redis://HOST:PORT[,...]: share topics with other nodes through Redis (broker.url)")
      ->type_name("URL");
  app.add_option("--config", config_path, "TOML config file")
      ->check(CLI::Validator(CLI::ExistingFile).description(""))
      ->type_name("FILE");
  app.add_option("--set", settings, "KEY=VALUE, overrides the config file (repeatable)")->type_name("KEY=VALUE");
  app.add_flag("--help-config", help_config, "list every config key with its default and range");
  app.set_version_flag("--version", "sluiced " SLUICE_VERSION, "print the version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  if (help_config) {
    std::fputs(sluice::server::describe_settings().c_str(), stdout);
    return 0;
  }

  if (auto error = set_twice(settings, listen, "--listen", "listen")) return fail(*error);
  if (auto error = set_twice(settings, threads, "--threads", "threads")) return fail(*error);
  if (auto error = set_twice(settings, broker, "--broker", "broker.url")) return fail(*error);
  // The flags go last, as --set entries: they win over both, and a reload,
  // which reads the file and these entries again, sees the same values.
  if (!listen.empty()) settings.push_back("listen=" + listen);
  if (!threads.empty()) settings.push_back("threads=" + threads);
  if (!broker.empty()) settings.push_back("broker.url=" + broker);

  sluice::server::Config config;
  if (!config_path.empty()) {
    if (auto error = sluice::server::load_config_file(config, config_path)) return fail(*error);
  }
  for (const std::string& setting : settings) {
    const auto eq = setting.find('=');
    if (eq == std::string::npos) return fail("--set wants KEY=VALUE (got '" + setting + "')");
    if (auto error = sluice::server::apply_setting(config, setting.substr(0, eq), setting.substr(eq + 1))) {
      return fail(*error);
    }
  }
  if (auto error = sluice::server::validate(config)) return fail(*error);

  sluice::server::Server server(config);
  if (auto error = setup_auth(config, server)) return fail(*error);
  if (prepare) prepare(server);
  if (sluice::server::SettingList started; !read_setting_list(config_path, settings, started)) {
    server.on_reload(SettingsReload(server, config_path, settings, std::move(started)));
  }
  server.on_reloaded(report_reload);
  if (const int rc = server.bind(); rc != 0) {
    const std::string why = server.bind_error().empty()
                                ? "cannot listen on " + config.listen + ": " + std::strerror(-rc)
                                : server.bind_error();
    // An address in use (an old process still leaving) or not yet on this
    // host (its network coming up) may be there on a later try: exit 1, which
    // a service manager restarts, where 2 says the settings are at fault.
    if (rc == -EADDRINUSE || rc == -EADDRNOTAVAIL) {
      std::fprintf(stderr, "sluiced: %s\n", why.c_str());
      return 1;
    }
    return fail(why);
  }
  g_server = &server;
  install_stop_handlers();
  // Whether the listener speaks TLS is said before the address, where the
  // scripts that read the port from the end of this line do not look.
  std::printf("sluiced (%zu %s%s) listening on %s:%u\n", server.loops(), server.loops() == 1 ? "loop" : "loops",
              config.tls.enabled() ? ", TLS" : "", config.listen.substr(0, config.listen.rfind(':')).c_str(),
              static_cast<unsigned>(server.port()));
  if (server.admin_port() != 0) {
    const std::string& admin = config.ops.admin_listen;
    std::printf("sluiced admin API on %s:%u\n", admin.substr(0, admin.rfind(':')).c_str(),
                static_cast<unsigned>(server.admin_port()));
  }
  std::fflush(stdout);
  server.run();
  g_server = nullptr;
  std::printf("sluiced stopped\n");
  return 0;
}

}  // namespace sluice::server
