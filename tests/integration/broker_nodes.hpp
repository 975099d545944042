// Owns: what the tests of several sluiced nodes sharing a real redis-server
// have in common: the nodes' settings, publishing on a node, waiting until
// every node reads a topic, and checking that a subscriber got exactly the
// events published, in order, under their ids. The BrokerNodes fixture
// starts Redis and three nodes: A and C subscribe, B publishes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "redis_server.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {

using BrokerClock = std::chrono::steady_clock;

inline std::vector<std::string> node_settings(const RedisServer& redis) {
  // Short Redis timeouts so that a stopped Redis is noticed in well under a
  // second, and a returned one found again as fast.
  return {"broker.url=" + redis.url(),        "threads=2",
          "broker.request_timeout_ms=400",    "broker.connect_timeout_ms=300",
          "broker.reconnect_min_ms=20",       "broker.reconnect_max_ms=200",
          "broker.read_block_ms=200"};
}

struct Published {
  int status = 0;
  std::string id;  // on 200
};

inline Published publish_on(const SluicedProcess& node, const std::string& topic, const std::string& data) {
  const HttpReply reply = http_request(static_cast<std::uint16_t>(node.port()), "POST", "/pub/" + topic, data);
  Published out{reply.status, {}};
  const std::size_t at = reply.body.find("\"id\":\"");
  if (reply.status == 200 && at != std::string::npos) {
    const std::size_t begin = at + 6;
    out.id = reply.body.substr(begin, reply.body.find('"', begin) - begin);
  }
  return out;
}

inline bool has_probe(SseSubscriber& s) {
  for (const auto& e : s.events()) {
    if (e.data.starts_with("probe")) return true;
  }
  return false;
}

// Publishes probes through `via` until every subscriber has received one:
// from then on each of their nodes reads the topic, and every later event
// is theirs. (A subscriber is owed what is published after its node found
// where the stream stands; the probes wait for exactly that.)
inline bool until_followed(const SluicedProcess& via, const std::string& topic, const std::vector<SseSubscriber*>& subs) {
  const auto deadline = BrokerClock::now() + 10s;
  for (int n = 0; BrokerClock::now() < deadline; ++n) {
    if (publish_on(via, topic, "probe " + std::to_string(n)).status != 200) continue;
    bool all = true;
    for (SseSubscriber* s : subs) {
      if (!has_probe(*s)) s->wait_for(s->events().size() + 1, 300ms);
      all = all && has_probe(*s);
    }
    if (all) return true;
  }
  return false;
}

// The events that are not probes, in the order they came.
inline std::vector<SseSubscriber::Event> events_of(SseSubscriber& s) {
  std::vector<SseSubscriber::Event> out;
  for (const auto& e : s.events()) {
    if (!e.data.starts_with("probe")) out.push_back(e);
  }
  return out;
}

// Reads until `count` non-probe events have come, at most `limit`.
inline bool wait_events(SseSubscriber& s, std::size_t count, std::chrono::milliseconds limit) {
  const auto deadline = BrokerClock::now() + limit;
  while (events_of(s).size() < count && BrokerClock::now() < deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - BrokerClock::now());
    s.wait_for(s.events().size() + 1, std::max(left, 1ms));
  }
  return events_of(s).size() >= count;
}

// Reads until an event whose data is `data` has come, at most `limit`.
inline bool wait_data(SseSubscriber& s, const std::string& data, std::chrono::milliseconds limit) {
  const auto deadline = BrokerClock::now() + limit;
  const auto has = [&] {
    return std::any_of(s.events().begin(), s.events().end(), [&](const auto& e) { return e.data == data; });
  };
  while (!has() && BrokerClock::now() < deadline) s.wait_for(s.events().size() + 1, 300ms);
  return has();
}

// Publishes probes on `via` until `s` is handed something: a probe once
// its node reads the topic, or the reset that says the node cannot.
inline bool first_news(const SluicedProcess& via, const std::string& topic, SseSubscriber& s, std::chrono::seconds limit) {
  const auto deadline = BrokerClock::now() + limit;
  for (int n = 0; BrokerClock::now() < deadline; ++n) {
    (void)publish_on(via, topic, "probe " + std::to_string(n));
    if (s.wait_for(1, 300ms)) return true;
  }
  return false;
}

// A subscriber of `topic` on `node` that its node reads (its first news is
// a probe). One that comes while the reader has yet to let go of the topic
// it followed before is told broker-full, or waits: another is tried.
inline std::unique_ptr<SseSubscriber> once_read(const SluicedProcess& node, const SluicedProcess& via,
                                         const std::string& topic) {
  const auto deadline = BrokerClock::now() + 20s;
  while (BrokerClock::now() < deadline) {
    auto s = std::make_unique<SseSubscriber>(static_cast<std::uint16_t>(node.port()), "/sse/" + topic);
    if (!s->opened()) return nullptr;
    if (first_news(via, topic, *s, 3s) && has_probe(*s)) return s;
  }
  return nullptr;
}

// `got` is exactly `expected` (data and id), in order, and nothing else.
inline void expect_exactly(const std::vector<SseSubscriber::Event>& got, const std::vector<std::string>& data,
                    const std::vector<std::string>& ids, const std::string& who) {
  ASSERT_EQ(got.size(), data.size()) << who;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].type, "message") << who << " event " << i << " is a notice: " << got[i].data;
    EXPECT_EQ(got[i].data, data[i]) << who << " event " << i;
    EXPECT_EQ(got[i].id, ids[i]) << who << " event " << i;
  }
}

class BrokerNodes : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.ok()) << redis_.error();
    for (auto* node : {&a_, &b_, &c_}) {
      *node = std::make_unique<SluicedProcess>(node_settings(redis_));
      ASSERT_NE((*node)->port(), 0) << (*node)->output();
    }
  }

  // A node with the common settings and `extra` ones.
  [[nodiscard]] std::unique_ptr<SluicedProcess> start_node(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> settings = node_settings(redis_);
    settings.insert(settings.end(), extra.begin(), extra.end());
    return std::make_unique<SluicedProcess>(settings);
  }

  static std::uint16_t port_of(const std::unique_ptr<SluicedProcess>& node) {
    return static_cast<std::uint16_t>(node->port());
  }

  // Publishes `count` events "PREFIX1".. on B; every one must be taken.
  void publish_run(const std::string& topic, const std::string& prefix, int first, int last,
                   std::vector<std::string>& data, std::vector<std::string>& ids) {
    for (int i = first; i <= last; ++i) {
      const std::string body = prefix + std::to_string(i);
      const Published p = publish_on(*b_, topic, body);
      ASSERT_EQ(p.status, 200) << body;
      data.push_back(body);
      ids.push_back(p.id);
    }
  }

  RedisServer redis_;
  std::unique_ptr<SluicedProcess> a_, b_, c_;
};

// The text of JSON string field `name` in `json`; empty when absent.
inline std::string field_of(const std::string& json, const std::string& name) {
  const std::string key = "\"" + name + "\":\"";
  const std::size_t at = json.find(key);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + key.size();
  return json.substr(begin, json.find('"', begin) - begin);
}

}  // namespace sluice::test
