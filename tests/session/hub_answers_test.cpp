#include "session/hub_answers.hpp"

#include <gtest/gtest.h>

namespace sluice::session {
namespace {

TEST(HubAnswers, EveryRefusalHasAStatusAndOneLine) {
  const HubAnswers answers(128);
  for (const hub::HubStatus status :
       {hub::HubStatus::bad_topic, hub::HubStatus::bad_event, hub::HubStatus::reserved_event,
        hub::HubStatus::reserved_data, hub::HubStatus::bad_key, hub::HubStatus::too_many_topics,
        hub::HubStatus::too_many_from_address,
        hub::HubStatus::too_many_subscribers, hub::HubStatus::no_memory, hub::HubStatus::busy}) {
    const HubAnswer answer = answers(status);
    EXPECT_TRUE(answer.http_status == 400 || answer.http_status == 429 || answer.http_status == 503) << answer.text;
    EXPECT_FALSE(answer.text.empty());
    EXPECT_EQ(answer.text.find('\n'), std::string_view::npos) << answer.text;
  }
}

TEST(HubAnswers, TheTopicRuleSpellsTheConfiguredLimit) {
  EXPECT_EQ(HubAnswers(128)(hub::HubStatus::bad_topic).text,
            "bad topic name: use 1-128 of [A-Za-z0-9_.:-] (topics.max_name)");
  EXPECT_EQ(HubAnswers(7)(hub::HubStatus::bad_topic).text,
            "bad topic name: use 1-7 of [A-Za-z0-9_.:-] (topics.max_name)");
}

TEST(HubAnswers, ReservedNamesAreRefusedByName) {
  const HubAnswers answers(128);
  EXPECT_EQ(answers(hub::HubStatus::reserved_event).http_status, 400);
  EXPECT_NE(answers(hub::HubStatus::reserved_event).text.find("sluice-"), std::string_view::npos);
  EXPECT_EQ(answers(hub::HubStatus::reserved_data).http_status, 400);
  EXPECT_NE(answers(hub::HubStatus::reserved_data).text.find("{\"sluice\":"), std::string_view::npos);
}

TEST(HubAnswers, PublishersAreToldWhenToComeBack) {
  const HubAnswers answers(128);
  EXPECT_EQ(answers(hub::HubStatus::busy).retry_after, "0");
  EXPECT_EQ(answers(hub::HubStatus::no_memory).retry_after, "1");
  EXPECT_TRUE(answers(hub::HubStatus::bad_topic).retry_after.empty());
}

}  // namespace
}  // namespace sluice::session
