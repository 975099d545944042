// Owns: FrameTag, what a frame in a subscriber's data lane is: an event (of
// which of the subscriber's topics, which id, which conflation key), a run
// of consecutive events of one topic (first and last id, see
// hub/event_runs.hpp), a notice the server wrote (a reset), or the
// application's own message (a ConnectionRef send). The policies act on
// events and runs only: a notice or an application message is never
// replaced by `latest` nor counted as a dropped event.
//
// A topic left while its frames wait keeps them as `left`: they still go
// out as queued, but no policy acts on them any more, so a topic joined
// next in the same slot never replaces, drops or counts them as its own.
//
// The queue (conn/) keeps a tag as an opaque FrameLabel; a frame queued
// without one reads back as an application message.
#pragma once

#include <cstdint>

#include "conn/frame_ring.hpp"

namespace sluice::delivery {

enum class FrameKind : std::uint8_t { application = 0, notice = 1, event = 2, run = 3 };

struct FrameTag {
  FrameKind kind = FrameKind::application;
  std::uint32_t topic = 0;  // the subscriber's own index for the topic
  std::uint64_t id = 0;     // the event's id within its topic (a run's first)
  std::uint64_t key = 0;    // conflation key: 0 for "the whole topic" (a run's last id)
  // Its topic's policy lets it be dropped to make room for another topic's
  // event (drop-oldest, latest); a fifo or drop-newest topic's never is.
  bool yields = false;

  [[nodiscard]] static constexpr FrameTag event(std::uint32_t topic, std::uint64_t id, std::uint64_t key) {
    return {FrameKind::event, topic, id, key};
  }
  // Events first..last, every id between them included.
  [[nodiscard]] static constexpr FrameTag run(std::uint32_t topic, std::uint64_t first, std::uint64_t last) {
    return {FrameKind::run, topic, first, last};
  }
  [[nodiscard]] static constexpr FrameTag notice(std::uint32_t topic) { return {FrameKind::notice, topic, 0, 0}; }

  [[nodiscard]] bool is_event() const { return kind == FrameKind::event; }
  // An event or a run: what a policy may drop.
  [[nodiscard]] bool holds_events() const { return kind == FrameKind::event || kind == FrameKind::run; }
  [[nodiscard]] std::uint64_t last_id() const { return kind == FrameKind::run ? key : id; }

  [[nodiscard]] conn::FrameLabel label() const {
    return {{id, key,
             std::uint64_t{topic} | std::uint64_t{static_cast<std::uint8_t>(kind)} << 32 |
                 std::uint64_t{yields} << 40}};
  }
  [[nodiscard]] static FrameTag of(const conn::FrameLabel& label) {
    return {static_cast<FrameKind>((label.words[2] >> 32) & 0xff), static_cast<std::uint32_t>(label.words[2]),
            label.words[0], label.words[1], ((label.words[2] >> 40) & 1) != 0};
  }
};

}  // namespace sluice::delivery
