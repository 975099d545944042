// The hub's tests share these: subscribers that record what they are
// handed, a watcher that plays the loop, and fixtures with a small pool and
// book (HubTest), and a broker's topic (StreamTopicTest).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "hub/event_runs.hpp"
#include "hub/hub.hpp"

namespace sluice::hub::test {

struct Collector : Subscriber {
  std::vector<std::uint64_t> ids;
  std::vector<buf::FrameRef> frames;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> losses;
  std::function<void()> on_deliver;
  void deliver(const Delivery& d) override {
    ids.push_back(d.id);
    frames.push_back(d.frames.sse());
    if (on_deliver) on_deliver();
  }
  void lost(std::uint32_t, std::uint64_t first, std::uint64_t last) override { losses.emplace_back(first, last); }
};

// Takes whole runs in the SSE form when the hub offers them, as a
// subscriber whose policy lets events go together does; a run the pool
// could not build is refused, and its events come one by one.
struct RunTaker : Collector {
  struct Run {
    std::uint64_t first;
    std::uint64_t last;
    buf::FrameRef frame;
  };
  std::vector<Run> runs;
  bool deliver_run(const RunDelivery& run) override {
    const buf::FrameRef& frame = run.runs.form(WireForm::sse);
    if (!frame) return false;
    runs.push_back({run.first_id, run.last_id, frame});
    return true;
  }
};

// Plays the loop: the book says which topics have news; pump() drains them.
struct Watcher : TopicWatcher {
  std::vector<TopicRecord*> changed;
  int rooms = 0;
  bool topic_changed(TopicRecord* record) override {
    changed.push_back(record);
    return true;
  }
  void room_made() override { ++rooms; }
};

// A loop on a thread of its own: its hub, and the topics the book said have
// news, taken under a lock because publishers on other threads add to them.
struct ThreadLoop : TopicWatcher {
  ThreadLoop(TopicBook& book, unsigned index) : hub(book, index) {}
  bool topic_changed(TopicRecord* record) override {
    const std::lock_guard lock(mutex);
    changed.push_back(record);
    return true;
  }
  void room_made() override {}
  // Drains what the book said has news since the last drain.
  void drain() {
    std::vector<TopicRecord*> todo;
    {
      const std::lock_guard lock(mutex);
      todo.swap(changed);
    }
    for (TopicRecord* record : todo) hub.drain(record);
  }
  // A thread that drains until `done`, and once more after it is set, so
  // that nothing published before it was set stays undrained.
  std::thread drain_until(const std::atomic<bool>& done) {
    return std::thread([this, &done] {
      for (bool last = false; !last;) {
        last = done.load();
        drain();
        std::this_thread::yield();
      }
    });
  }
  Hub hub;
  std::mutex mutex;
  std::vector<TopicRecord*> changed;
};


inline std::string text(const buf::FrameRef& f) {
  std::string out(f.size(), '\0');
  f.copy_to(out.data(), out.size());
  return out;
}

struct HubTest : testing::Test {
  explicit HubTest(HubLimits limits = {.max_topics = 3, .max_topic_name = 16, .max_subscribers_per_topic = 4})
      : book(pool, limits, "ep") {
    book.set_watcher(0, &watcher);
  }
  PublishResult publish(std::string_view topic, const Message& m) {
    const PublishResult r = book.publish(topic, m);
    pump();
    return r;
  }
  void pump() {
    for (TopicRecord* r : watcher.changed) hub.drain(r);
    watcher.changed.clear();
  }

  buf::Pool pool{{.block_count = 256, .block_size = 256, .reserve = 4}};
  TopicBook book;
  Watcher watcher;
  Hub hub{book, 0};
};

// A broker's topic: its events come from the reader (append) under the ids
// of the topic's stream, and the hub tells the node when it starts and
// stops following the topic.
struct Follower : TopicFollower {
  std::vector<std::string> changes;
  std::vector<std::string> retries;
  void following_changed(std::string_view topic) override { changes.emplace_back(topic); }
  void try_refused_again(std::string_view topic) override { retries.emplace_back(topic); }
};

struct ResetCollector : Collector {
  std::vector<std::string> resets;
  void reset(std::uint32_t, const char* reason) override { resets.emplace_back(reason); }
};

// 1796131742915 in base 36.
constexpr std::uint64_t kEpoch = 1796131742915;
constexpr std::uint64_t kLaterEpoch = kEpoch + 5000;

struct StreamTopicTest : HubTest {
  explicit StreamTopicTest(HubLimits limits = {.max_topics = 3, .max_topic_name = 16, .max_subscribers_per_topic = 4})
      : HubTest(limits) {
    hub.set_follower(&follower);
  }
  TopicBook::Append append(std::uint64_t epoch, std::uint64_t seq, std::string_view data) {
    const TopicBook::Append a = book.append("t", epoch, seq, {data}, nullptr);
    pump();
    return a;
  }
  Follower follower;
};

}  // namespace sluice::hub::test
