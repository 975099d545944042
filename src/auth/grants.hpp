// Owns: Identity, what a verified token says about its holder (who, until
// when, which topics it may subscribe to and publish on), the topics open
// to anyone (auth.anonymous_subscribe, auth.anonymous_publish), and
// decide_topic(), the answer for one subscribe or publish.
//
// The grants claim is an object named by auth.claim ("sluice" by default),
// shaped like Mercure's "mercure" claim:
//   {"sluice": {"subscribe": ["news", "prices.*"], "publish": ["prices.*"]}}
// A token without it authenticates its holder but grants nothing beyond
// what anonymous clients get.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "auth/decision.hpp"
#include "auth/topic_patterns.hpp"

namespace sluice::auth {

enum class Action : std::uint8_t { subscribe, publish };

[[nodiscard]] std::string_view action_name(Action action);

struct Identity {
  std::string subject;                                           // the token's `sub`; empty when it has none
  std::optional<std::chrono::system_clock::time_point> expires;  // `exp`
  // `nbf` and `iat`, kept so that a connection reusing the token can be
  // judged by every time claim again (jwt_claims.hpp, check_token_times).
  std::optional<std::chrono::system_clock::time_point> not_before;
  std::optional<std::chrono::system_clock::time_point> issued_at;
  TopicPatterns subscribe;
  TopicPatterns publish;

  [[nodiscard]] const TopicPatterns& patterns(Action action) const {
    return action == Action::subscribe ? subscribe : publish;
  }
};

struct AnonymousGrants {
  TopicPatterns subscribe;  // auth.anonymous_subscribe
  TopicPatterns publish;    // auth.anonymous_publish

  [[nodiscard]] const TopicPatterns& patterns(Action action) const {
    return action == Action::subscribe ? subscribe : publish;
  }
};

// `identity` is null when the request carried no token. Allows when the
// anonymous grants or the identity's cover the topic; otherwise 401 without
// a token (one might help) and 403 with one (a token will not change).
// `topic` is a valid topic name (routes check that first), so the reason may
// name it. Allocates only to word a refusal.
[[nodiscard]] Decision decide_topic(const Identity* identity, const AnonymousGrants& anonymous, Action action,
                                    std::string_view topic);

}  // namespace sluice::auth
