// Owns: HubAnswers, what a client is told when the hub refuses a publish or
// a subscription (hub::HubStatus): one text per refusal, used alike as an
// HTTP reply's body, a /ws ack's error and a WebSocket close reason, plus
// the HTTP status and Retry-After it comes with. The topic-name rule is
// spelled from the configured limit.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "hub/hub_types.hpp"

namespace sluice::session {

struct HubAnswer {
  int http_status = 200;
  std::string_view text;         // one line, no newline
  std::string_view retry_after;  // the Retry-After value, or empty
};

class HubAnswers {
 public:
  explicit HubAnswers(std::size_t max_topic_name);

  [[nodiscard]] HubAnswer operator()(hub::HubStatus status) const;

 private:
  std::string bad_topic_;
};

}  // namespace sluice::session
