#include "server/token_authorizer.hpp"


#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "auth/decision.hpp"
#include "auth/grants.hpp"
#include "auth/jwt_claims.hpp"
#include "auth/jwt_verifier.hpp"
#include "auth/key_ring.hpp"
#include "auth/peer_address.hpp"
#include "auth/rate_limiter.hpp"
#include "auth/token_fingerprint.hpp"
#include "auth/token_source.hpp"
#include "server/hook_decision.hpp"

namespace sluice::server {

namespace {

// What a connection's data holds from its first request on: the identity
// its latest request's token proved, if any, and that token's fingerprint
// (empty after a refresh, whose token no request carries). Never changed
// once made: a ConnectionRef on another thread may be reading it.
struct ConnectionAuth {
  std::optional<auth::Identity> identity;
  auth::TokenFingerprint token;
};

auth::RateRule rule(std::int64_t per_second, std::int64_t burst) {
  return {static_cast<std::uint32_t>(per_second), static_cast<std::uint32_t>(burst)};
}

auth::RateConfig rate_config(const AuthRateConfig& r) {
  auth::RateConfig out;
  out.connect_per_address = rule(r.connect_per_ip, r.connect_per_ip_burst);
  out.connect_per_identity = rule(r.connect_per_identity, r.connect_per_identity_burst);
  out.subscribe_per_address = rule(r.subscribe_per_ip, r.subscribe_per_ip_burst);
  out.subscribe_per_identity = rule(r.subscribe_per_identity, r.subscribe_per_identity_burst);
  out.publish_per_address = rule(r.publish_per_ip, r.publish_per_ip_burst);
  out.publish_per_identity = rule(r.publish_per_identity, r.publish_per_identity_burst);
  out.table_entries = static_cast<std::size_t>(r.table_entries);
  return out;
}

// What tokens are checked with: one load's keys and claim rules, and the
// fingerprinter whose fingerprints stand for tokens these proved. Built
// whole at start and by each reload, never changed after: a connection's
// fingerprint made under one set matches nothing another set makes.
struct TokenKeys {
  explicit TokenKeys(auth::JwtVerifier v) : verifier(std::move(v)) {}

  [[nodiscard]] const auth::JwtRules& rules() const { return verifier.rules(); }

  const auth::JwtVerifier verifier;
  const auth::TokenFingerprinter fingerprints;
};
using KeysRef = std::shared_ptr<const TokenKeys>;

// One loop's hold on the set it checks with, written by that loop only.
struct alignas(64) LoopKeys {
  std::uint64_t generation = 0;
  KeysRef keys;
};

// The keys and claim rules `config.auth` names, key files read now.
std::optional<std::string> load_keys(const Config& config, KeysRef& out) {
  const AuthConfig& a = config.auth;
  auth::KeyRing keys;
  const auth::KeySources sources{a.jwt_secret, a.jwt_public_key_file, a.jwks_file,
                                 static_cast<std::size_t>(a.max_keys), a.jwt_secret_file};
  if (auto error = keys.load(sources)) return error;
  if (keys.empty()) {
    return std::string("config key 'auth.mode' is jwt but no key is set: give auth.jwt_secret, "
                       "auth.jwt_secret_file, auth.jwt_public_key_file or auth.jwks_file");
  }
  auth::JwtRules rules;
  rules.max_token_bytes = static_cast<std::size_t>(a.max_token_bytes);
  rules.max_claims = static_cast<std::size_t>(a.max_claims);
  rules.max_patterns = static_cast<std::size_t>(a.max_patterns);
  rules.clock_skew = std::chrono::milliseconds(a.clock_skew_ms);
  rules.require_exp = a.require_exp != 0;
  rules.audience = a.audience;
  rules.issuer = a.issuer;
  rules.claim = a.claim;
  rules.max_topic_name = config.hub.max_topic_name;
  out = std::make_shared<const TokenKeys>(auth::JwtVerifier(std::move(keys), std::move(rules)));
  return std::nullopt;
}

class TokenAuthorizer {
 public:
  TokenAuthorizer(const AuthConfig& config, KeysRef keys, auth::AnonymousGrants anonymous,
                  metrics::Registry* metrics)
      : metrics_(metrics),
        loop_keys_(metrics != nullptr ? metrics->loops() : 1),
        keys_(std::move(keys)),
        anonymous_(std::move(anonymous)),
        cookie_name_(config.cookie_name),
        lookup_{cookie_name_, config.query_token != 0},
        limiter_(rate_config(config.rate)) {
    for (LoopKeys& mine : loop_keys_) mine = {1, keys_};
  }

  AuthDecision operator()(const AuthRequest& request) {
    KeysRef held_here;  // only for a loop index past the loops counted at build (never in sluiced)
    const TokenKeys& keys = keys_for(request.loop, held_here);
    const auth::PeerAddress address = auth::peer_address(request.peer);
    if (request.action == Action::connect) return connect(request, address, keys);
    if (request.action == Action::refresh) return refresh(request, address, keys);
    const auto kind = request.action == Action::subscribe ? auth::Action::subscribe : auth::Action::publish;
    const auto* held = static_cast<const ConnectionAuth*>(request.user.get());
    const auth::Identity* identity = held != nullptr && held->identity ? &*held->identity : nullptr;
    // A WebSocket lives past its token's expiry until the sweep closes it:
    // what it asks meanwhile is judged by the token as it is then.
    if (identity != nullptr && identity->expires &&
        std::chrono::system_clock::now() > *identity->expires + keys.rules().clock_skew) {
      return to_hook(auth::Decision::invalid_token("token expired"));
    }
    if (auth::Decision d = auth::decide_topic(identity, anonymous_, kind, request.topic); !d.allowed()) {
      return to_hook(d);
    }
    // A topic a stream already follows, asked again after a refresh, is
    // not a new subscription.
    if (request.held) return AuthDecision::allow();
    return limit(kind == auth::Action::subscribe ? auth::RateKind::subscribe : auth::RateKind::publish, address,
                 identity != nullptr ? identity->subject : std::string_view());
  }

  // A reload's first step: the keys and claim rules `next` names, loaded
  // beside the running ones and kept for apply(); nothing changes in force.
  std::optional<std::string> prepare(const Config& next) {
    KeysRef keys;
    if (auto error = load_keys(next, keys)) return error;
    const std::lock_guard lock(keys_mutex_);
    staged_ = std::move(keys);
    return std::nullopt;
  }

  // A reload's second step: the keys prepare() loaded, for each loop's next
  // check, and the rates (the table and its buckets stay).
  void apply(const Config& next) {
    {
      const std::lock_guard lock(keys_mutex_);
      if (staged_) {
        keys_ = std::move(staged_);
        generation_.fetch_add(1, std::memory_order_release);
      }
    }
    const std::lock_guard lock(mutex_);
    limiter_.set_rules(rate_config(next.auth.rate));
  }

 private:
  // The set loop `loop` checks with: its own hold, taken again under the
  // mutex only when a reload has swapped the set since it last looked.
  const TokenKeys& keys_for(unsigned loop, KeysRef& held_here) {
    const std::uint64_t generation = generation_.load(std::memory_order_acquire);
    if (loop >= loop_keys_.size()) {
      const std::lock_guard lock(keys_mutex_);
      held_here = keys_;
      return *held_here;
    }
    LoopKeys& mine = loop_keys_[loop];
    if (mine.generation != generation) {
      const std::lock_guard lock(keys_mutex_);
      mine = {generation_.load(std::memory_order_relaxed), keys_};
    }
    return *mine.keys;
  }

  void count(unsigned loop, metrics::TokenOutcome outcome) {
    if (metrics_ == nullptr) return;
    if (loop < metrics_->loops()) {
      metrics_->loop(loop).token(outcome).add();
    } else {
      metrics_->count_off_loop([outcome](metrics::LoopMetrics& m) { return &m.token(outcome); });
    }
  }

  // Every request: its token (if any) is verified and what it grants kept
  // in the connection's data, replacing what an earlier request on the
  // same connection left there, unless it is the very token that earlier
  // request proved (reuse()). Only a connection's first request counts
  // against the connect limits: a kept-alive client's later requests are
  // not new connections (each publish counts against the publish limits).
  // The address's connect token is spent before the signature is checked:
  // a client sending connection after connection with forged tokens is
  // refused once over its limit without costing a verification each.
  AuthDecision connect(const AuthRequest& request, const auth::PeerAddress& address, const TokenKeys& keys) {
    const bool first = request.user == nullptr;
    if (first) {
      AuthDecision limited = limit_one(auth::RateKind::connect, auth::RateScope::address, address.view());
      if (!limited.allowed()) return limited;
    }
    // Each loop's thread keeps its own list, which keeps its capacity: after
    // a connection's first requests, finding the token allocates nothing.
    thread_local std::vector<proto::http1::Header> headers;
    headers.clear();
    for (const HeaderField& f : request.headers.fields()) headers.push_back({f.name, f.value});
    const auth::FoundToken found = auth::find_token(headers, request.query, lookup_);
    const auth::TokenFingerprint fingerprint =
        found.error == nullptr && found.source != auth::TokenSource::none ? keys.fingerprints.of(found.token)
                                                                          : auth::TokenFingerprint{};
    if (const auto* known = static_cast<const ConnectionAuth*>(request.user.get()); known != nullptr) {
      if (auto reused = reuse(request.loop, *known, fingerprint, keys)) return *std::move(reused);
    }
    auto held = std::make_shared<ConnectionAuth>();
    request.user = held;
    auth::Decision refused;
    if (found.error != nullptr) {
      count(request.loop, metrics::TokenOutcome::refused);
      refused = auth::Decision::invalid_token(found.error);
    } else if (found.source != auth::TokenSource::none) {
      auth::VerifiedToken verified = keys.verifier.verify(found.token, std::chrono::system_clock::now());
      if (verified.check.ok()) {
        count(request.loop, metrics::TokenOutcome::verified);
        held->identity = std::move(verified.identity);
        held->token = fingerprint;
      } else {
        count(request.loop, metrics::TokenOutcome::refused);
        refused = auth::Decision::invalid_token(std::move(verified.check.reason));
      }
    }
    if (first && held->identity) {
      AuthDecision limited = limit_one(auth::RateKind::connect, auth::RateScope::identity, held->identity->subject);
      if (!limited.allowed()) {
        // The connection stays a new one: over HTTP/2 the refusal ends only
        // this stream, and the next must meet the connect limits again
        // rather than find an identity proved and reuse it.
        request.user = nullptr;
        return limited;
      }
    }
    return valid_until(to_hook(refused), held->identity, keys);
  }

  // The same token as the connection's last request, from the same set of
  // keys (a fingerprint made before a reload swapped them matches nothing
  // now): its identity stands if its time claims still hold now (an
  // expired token falls through to a full verification, which refuses it
  // with the same reason as ever and leaves the connection anonymous).
  // Nothing is allocated and the connection's data is left as it is.
  std::optional<AuthDecision> reuse(unsigned loop, const ConnectionAuth& known, const auth::TokenFingerprint& token,
                                    const TokenKeys& keys) {
    if (!known.identity || !auth::same_token(known.token, token)) return std::nullopt;
    if (!auth::check_token_times(*known.identity, keys.rules(), std::chrono::system_clock::now()).ok()) {
      return std::nullopt;
    }
    count(loop, metrics::TokenOutcome::reused);
    return valid_until(AuthDecision::allow(), known.identity, keys);
  }

  // A /ws client's new token, verified like the first. It must name the
  // same subject: an open connection keeps the identity it was opened
  // with, so a token of someone else's cannot take over a connection (its
  // subscriptions, its rate-limit account, what the application's on_open
  // was told) and a connection opened without a token cannot gain one. A
  // refresh counts against the connect limits: each costs a signature
  // check, as a new connection's token does.
  AuthDecision refresh(const AuthRequest& request, const auth::PeerAddress& address, const TokenKeys& keys) {
    const auto* held = static_cast<const ConnectionAuth*>(request.user.get());
    if (held == nullptr || !held->identity) {
      return to_hook(auth::Decision::forbid("the connection was opened without a token; a refresh cannot add one"));
    }
    if (AuthDecision limited = limit(auth::RateKind::connect, address, held->identity->subject); !limited.allowed()) {
      return limited;
    }
    auth::VerifiedToken verified = keys.verifier.verify(request.token, std::chrono::system_clock::now());
    count(request.loop, verified.check.ok() ? metrics::TokenOutcome::verified : metrics::TokenOutcome::refused);
    if (!verified.check.ok()) return to_hook(auth::Decision::invalid_token(std::move(verified.check.reason)));
    if (verified.identity.subject != held->identity->subject) {
      return to_hook(auth::Decision::forbid("the token's subject is not the connection's"));
    }
    // A new object, not the old one changed: a ConnectionRef on another
    // thread may still hold the old one.
    auto next = std::make_shared<ConnectionAuth>();
    next->identity = std::move(verified.identity);
    request.user = next;
    return valid_until(AuthDecision::allow(), next->identity, keys);
  }

  // The moment the sweep ends a stream opened on `identity`'s token: its
  // exp with the same slack the token was accepted with.
  static AuthDecision valid_until(AuthDecision decision, const std::optional<auth::Identity>& identity,
                                  const TokenKeys& keys) {
    if (identity && identity->expires) decision.until(*identity->expires + keys.rules().clock_skew);
    return decision;
  }

  AuthDecision limit_one(auth::RateKind kind, auth::RateScope scope, std::string_view key) {
    auth::RateCheck check;
    {
      const std::lock_guard lock(mutex_);
      check = limiter_.check_one(kind, scope, key, auth::RateLimiter::Clock::now());
    }
    return check.allowed ? AuthDecision::allow() : to_hook(auth::rate_decision(check));
  }

  AuthDecision limit(auth::RateKind kind, const auth::PeerAddress& address, std::string_view subject) {
    // One limiter for every loop: a client's limit is the same whichever
    // loop the kernel handed its connection to. The lock is taken per
    // request, subscribe and publish, never per event.
    auth::RateCheck check;
    {
      const std::lock_guard lock(mutex_);
      check = limiter_.check(kind, address, subject, auth::RateLimiter::Clock::now());
    }
    return check.allowed ? AuthDecision::allow() : to_hook(auth::rate_decision(check));
  }

  metrics::Registry* const metrics_;
  std::vector<LoopKeys> loop_keys_;  // by loop
  // The set in force, and the one a reload's prepare() loaded, under the
  // mutex: a reload and a loop's first check after it take it, nothing else.
  std::mutex keys_mutex_;
  KeysRef keys_;
  KeysRef staged_;
  std::atomic<std::uint64_t> generation_{1};  // counts the sets put in force
  const auth::AnonymousGrants anonymous_;
  const std::string cookie_name_;
  const auth::TokenLookup lookup_;
  std::mutex mutex_;
  auth::RateLimiter limiter_;
};

std::optional<std::string> patterns(const std::vector<std::string>& list, std::string_view key,
                                    const Config& config, auth::TopicPatterns& out) {
  return auth::TopicPatterns::from_config(list, key, static_cast<std::size_t>(config.auth.max_patterns),
                                          config.hub.max_topic_name, out);
}

}  // namespace

std::optional<std::string> make_token_authorizer(const Config& config, Authorizer& out, metrics::Registry* metrics,
                                                 LiveSettingsHook* reload) {
  const AuthConfig& a = config.auth;
  KeysRef keys;
  if (auto error = load_keys(config, keys)) return error;
  auth::AnonymousGrants anonymous;
  if (auto error = patterns(a.anonymous_subscribe, "auth.anonymous_subscribe", config, anonymous.subscribe)) {
    return error;
  }
  if (auto error = patterns(a.anonymous_publish, "auth.anonymous_publish", config, anonymous.publish)) return error;
  auto authorizer = std::make_shared<TokenAuthorizer>(a, std::move(keys), std::move(anonymous), metrics);
  out = [authorizer](const AuthRequest& request) { return (*authorizer)(request); };
  if (reload != nullptr) {
    reload->prepare = [authorizer](const Config& next) { return authorizer->prepare(next); };
    reload->apply = [authorizer](const Config& next) { authorizer->apply(next); };
  }
  return std::nullopt;
}

}  // namespace sluice::server
