#include "auth/grants.hpp"

namespace sluice::auth {

std::string_view action_name(Action action) { return action == Action::subscribe ? "subscribe" : "publish"; }

Decision decide_topic(const Identity* identity, const AnonymousGrants& anonymous, Action action,
                      std::string_view topic) {
  if (anonymous.patterns(action).matches(topic)) return Decision::allow();
  if (identity == nullptr) {
    return Decision::missing_token("a token is needed to " + std::string(action_name(action)) + " on '" +
                                   std::string(topic) + "'");
  }
  if (identity->patterns(action).matches(topic)) return Decision::allow();
  return Decision::forbid("the token does not grant " + std::string(action_name(action)) + " on '" +
                          std::string(topic) + "'");
}

}  // namespace sluice::auth
