#include "server/auth_setup.hpp"

#include <arpa/inet.h>

#include "io/socket.hpp"
#include "server/callback_authorizer.hpp"
#include "server/live_settings.hpp"
#include "server/server_impl.hpp"
#include "server/token_authorizer.hpp"

namespace sluice::server {

bool loopback_host(std::string_view host) {
  if (host == "localhost") return true;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    in6_addr v6{};
    return ::inet_pton(AF_INET6, std::string(host.substr(1, host.size() - 2)).c_str(), &v6) == 1 &&
           IN6_IS_ADDR_LOOPBACK(&v6);
  }
  in_addr v4{};
  return ::inet_pton(AF_INET, std::string(host).c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

namespace {

// auth.mode=jwt, callback, or both (jwt with auth.callback_url).
std::optional<std::string> install_authorizer(const Config& config, Server& server) {
  const AuthConfig& auth = config.auth;
  Authorizer authorizer;
  if (auth.mode == AuthMode::jwt) {
    LiveSettingsHook reload;
    if (auto error = make_token_authorizer(config, authorizer, &impl_of(server).registry, &reload)) return error;
    on_live_settings(server, std::move(reload));
  }
  if (auth.mode == AuthMode::callback || !auth.callback_url.empty()) {
    if (auto error = make_callback_authorizer(config, server, std::move(authorizer), authorizer)) return error;
  }
  server.authorize(std::move(authorizer));
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_auth_settings(const Config& config) {
  // The admin API closes connections and drains the node: off loopback it
  // answers only to tokens that grant "$admin", whatever auth.mode allows
  // on the public listener.
  if (const std::string& admin = config.ops.admin_listen; !admin.empty() && config.auth.mode != AuthMode::jwt) {
    io::Endpoint endpoint;
    if (!io::parse_endpoint(admin, endpoint) || !loopback_host(endpoint.host)) {
      return "config key 'admin.listen' is " + admin +
             ", not a loopback address, and auth.mode is not jwt: listen on loopback (127.0.0.1:PORT) or set "
             "auth.mode=jwt (a token granting $admin)";
    }
  }
  if (!config.auth.callback_url.empty() && (config.auth.mode == AuthMode::none || config.auth.mode == AuthMode::open)) {
    return "config key 'auth.callback_url' is set but auth.mode is " +
           std::string(config.auth.mode == AuthMode::none ? "none" : "open") +
           ": set auth.mode=callback (the callback decides) or auth.mode=jwt (tokens first, then the callback)";
  }
  // Keys a token check reads, set with no token check to read them: the
  // operator meant auth.mode=jwt, and would run without it unwarned.
  if (config.auth.mode == AuthMode::none || config.auth.mode == AuthMode::open) {
    const AuthConfig& auth = config.auth;
    const std::pair<const char*, bool> token_keys[] = {
        {"auth.jwt_secret", !auth.jwt_secret.empty()},
        {"auth.jwt_secret_file", !auth.jwt_secret_file.empty()},
        {"auth.jwt_public_key_file", !auth.jwt_public_key_file.empty()},
        {"auth.jwks_file", !auth.jwks_file.empty()},
        {"auth.anonymous_subscribe", !auth.anonymous_subscribe.empty()},
        {"auth.anonymous_publish", !auth.anonymous_publish.empty()},
    };
    for (const auto& [key, set] : token_keys) {
      if (!set) continue;
      return std::string("config key '") + key + "' is set but auth.mode is " +
             (auth.mode == AuthMode::none ? "none" : "open") + ", which checks no token: set auth.mode=jwt";
    }
  }
  if (config.auth.mode == AuthMode::none) {
    io::Endpoint endpoint;
    if (io::parse_endpoint(config.listen, endpoint) && loopback_host(endpoint.host)) return std::nullopt;
    return "config key 'listen' is " + config.listen +
           ", not a loopback address, and auth.mode is none: set auth.mode=jwt (tokens) or auth.mode=open "
           "(anyone may publish and read)";
  }
  return std::nullopt;
}

std::optional<std::string> setup_auth(const Config& config, Server& server) {
  if (auto error = check_auth_settings(config)) return error;
  // A reload is held to the same rules, on what would be in force after it
  // (the restart-only keys keep their running values): a token key may not
  // come in while auth.mode stays none. Its refusal says so, or a file that
  // already sets what the rule asks would read as ignored.
  on_live_settings(server, {.prepare = [](const Config& next) -> std::optional<std::string> {
                     if (auto error = check_auth_settings(next)) {
                       return *error + " (a reload keeps auth.mode, listen and admin.listen as they run: a change "
                                       "to them takes a restart)";
                     }
                     return std::nullopt;
                   }});
  if (config.auth.mode == AuthMode::jwt || config.auth.mode == AuthMode::callback) {
    return install_authorizer(config, server);
  }
  return std::nullopt;
}

}  // namespace sluice::server
