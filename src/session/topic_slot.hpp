// Owns: TopicSlot, what a stream keeps of one topic it follows, in one
// place: a stream that follows one topic (every SSE stream, most
// WebSockets) holds one small allocation for all of it, where a vector per
// field held one each (about 150 bytes per idle connection more).
#pragma once

#include <string>

#include "sluice/policy.hpp"

namespace sluice::hub {
struct TopicRecord;
}  // namespace sluice::hub

namespace sluice::session {

struct TopicSlot {
  std::string name;  // empty: left, and free for the stream's next join
  Policy policy = Policy::fifo;
  // The topic's record while the stream follows it fifo, else null: where
  // the stream tells a waiting publisher it is short of room.
  hub::TopicRecord* fifo_record = nullptr;
};

}  // namespace sluice::session
