#include "session/hub_answers.hpp"

namespace sluice::session {

HubAnswers::HubAnswers(std::size_t max_topic_name)
    : bad_topic_("bad topic name: use 1-" + std::to_string(max_topic_name) + " of [A-Za-z0-9_.:-] (topics.max_name)") {}

HubAnswer HubAnswers::operator()(hub::HubStatus status) const {
  switch (status) {
    case hub::HubStatus::ok:
      return {200, "ok", {}};
    case hub::HubStatus::bad_topic:
      return {400, bad_topic_, {}};
    case hub::HubStatus::bad_event:
      return {400, "bad event name: at most 255 bytes, no CR, LF or NUL", {}};
    case hub::HubStatus::reserved_event:
      return {400, "bad event name: names starting sluice- are the server's notices", {}};
    case hub::HubStatus::reserved_data:
      return {400, "bad data: data starting {\"sluice\": is the form of the server's notices", {}};
    case hub::HubStatus::bad_key:
      return {400, "bad key: at most 255 bytes", {}};
    case hub::HubStatus::too_many_topics:
      return {503, "topic limit reached (topics.max)", {}};
    case hub::HubStatus::too_many_subscribers:
      return {503, "topic limit reached: this topic has all the subscribers it may (topics.max_subscribers)", {}};
    case hub::HubStatus::too_many_created:
      return {429, "this connection made too many new topics (topics.max_created_per_connection)", {}};
    case hub::HubStatus::too_many_from_address:
      return {429, "this address is the first follower of all the topics it may be (topics.max_per_address)", {}};
    case hub::HubStatus::no_memory:
      return {503, "out of buffer memory, retry", "1"};
    case hub::HubStatus::busy:
      return {503, "subscribers are catching up, retry", "0"};
  }
  return {500, "internal error", {}};
}

}  // namespace sluice::session
