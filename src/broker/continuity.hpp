// Owns: the rules that keep a topic's events gapless across nodes and
// faults, as pure functions of stream ids (see stream_id.hpp: a stream's
// ids are EPOCH-1, EPOCH-2, ... with no holes, and a stream created afresh
// has a new EPOCH). Each rule answers what happened between two ids:
// nothing, a hole (events trimmed before anyone here read them), or a
// different stream (Redis lost the old one) — never a silent skip.
#pragma once

#include <cstdint>

#include "broker/stream_id.hpp"

namespace sluice::broker {

// Why what comes next does not continue what came before. The texts are
// what subscribers are told (a sluice-reset event's reason).
inline constexpr const char* kStreamReplaced = "stream-replaced";  // a new epoch: Redis lost the old stream
inline constexpr const char* kStreamLost = "stream-lost";          // the stream is gone
inline constexpr const char* kStreamRewound = "stream-rewound";    // the stream is older than what was read
inline constexpr const char* kTooOld = "too-old";                  // trimmed away
inline constexpr const char* kOtherEpoch = "other-epoch";          // an id of a stream that is gone
inline constexpr const char* kUnknownId = "unknown-id";            // no such event (yet)

// A reader's position: the last entry handed over, or {0, 0} before the
// stream's first (the stream did not exist when the topic was located).
// Real epochs are milliseconds since 1970, never 0.

// What to do with `entry`, read from the stream after `position`.
struct Step {
  bool stale = false;     // at or before the position: already handed over
  const char* reset = nullptr;  // a different stream than the position's
  bool gap = false;       // entries gap_first..gap_last were trimmed unread
  StreamId gap_first;
  StreamId gap_last;
};
[[nodiscard]] Step step_after(StreamId position, StreamId entry);

// Where a reader resumes after its connection came back, given the
// stream's newest entry now (`exists` false: no stream). `reset` says why
// the events from `position` on do not continue the ones before.
struct Recheck {
  StreamId position;
  const char* reset = nullptr;
};
[[nodiscard]] Recheck recheck(StreamId position, bool exists, StreamId newest);

// Whether a client that last saw `asked` can be given every event after it
// from the stream: `found` and `first` are the first entry at or after
// `asked` (XRANGE asked + COUNT n). An `asked` with SEQ 0 means "before
// the stream's first event". nullptr when it can; otherwise the reason for
// the reset.
[[nodiscard]] const char* check_resume(StreamId asked, bool found, StreamId first);

}  // namespace sluice::broker
