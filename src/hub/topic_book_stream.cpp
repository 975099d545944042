// Owns: the TopicBook's side of a broker's stream for each topic: where the
// topic begins in it (where the reader started, or where a resuming client
// stands), what a reset does to the history, and what a reader is told
// about the topic's state. append() is beside publish() in topic_book.cpp.
//
// The topic's seqs are the stream's: a client that names `EPOCH:SEQ` of a
// topic the node has not read yet is owed SEQ+1 onwards, and those come
// from the reader only if it reads from SEQ, not from wherever the stream
// stands when the reader gets to it. So such a client sets the topic's
// start, and the reader is sent back to it. Anything that says the client's
// stream does not continue (gone, replaced, shorter than its id) is a reset
// every subscriber is told.
#include "hub/topic_book.hpp"

#include <algorithm>

namespace sluice::hub {

// Under the topic's lock. The old stream's events go at once, delivered or
// not: they are of a stream that no longer continues, and every subscriber
// is told so before the new stream's first event.
void TopicBook::cut_history(TopicRecord& record, const char* reason) {
  while (record.history.evict_oldest()) {
  }
  record.reset_base = 0;
  record.next_id = 1;
  record.reset_reason = reason;
  ++record.resets;
  record.reason_count = record.resets;
  record.read_on = false;
  record.reader_stopped = false;
  record.place_seq = 0;
  // The epoch was only the client's word: the next stream met is taken.
  if (record.resume_start) record.stream_epoch = 0;
  record.resume_start = false;
}

// A move of the start is a rebase no subscriber is told of: every loop's
// subscribers are owed what comes after it, and a subscriber owed from a
// later event keeps its place (Hub::rebase).
bool TopicBook::start_at_resume_point(TopicRecord& record, std::uint64_t epoch, std::uint64_t seq) {
  if (epoch == 0 || !record.history.empty() || record.adopting) return false;
  const bool unread = record.stream_epoch == 0;
  if (!unread && !(record.resume_start && record.stream_epoch == epoch)) return false;
  if (unread || seq + 1 < record.next_id) {
    record.stream_epoch = epoch;
    record.resume_start = true;
    record.next_id = seq + 1;
    record.reset_base = seq;
    ++record.resets;
  }
  return true;
}

// After a `read_on` reset, once the reader stands at `position` of the same
// stream: the topic goes on from there, with a rebase every loop acts on.
// The loops go on from the last id this node had, so that a stretch the
// reader skipped (published while it did not follow) is told as lost; or
// from `position` when Redis rewound the stream below that id, since the
// ids after it are new events'. A loop that told the reset already is not
// told it again (reason_count), one that has not drained since is.
void TopicBook::read_on_from(TopicRecord& record, std::uint64_t position) {
  record.adopting = false;
  record.read_on = false;
  record.reader_stopped = false;
  record.next_id = position + 1;
  record.reset_base = std::min(record.read_on_base, position);
  ++record.resets;
}

std::uint64_t TopicBook::stream_started(std::string_view name, std::uint64_t epoch, std::uint64_t seq) {
  const TopicRef ref = find_pinned(name);
  if (!ref) return seq;
  TopicRecord* record = ref.get();
  std::uint64_t mask = 0;
  std::uint64_t read_after = seq;
  {
    const std::lock_guard lock(record->mutex);
    // Subscribers waiting for the place hear of it whatever follows.
    record->reader_placed = true;
    record->reader_stopped = false;
    record->reader_refused = false;
    mask = record->loop_mask;
    if (record->resume_start) {
      const std::uint64_t resume_point = record->next_id - 1;
      if (epoch == 0) {
        cut_history(*record, "stream-lost");
        record->adopting = true;
      } else if (epoch != record->stream_epoch || seq < resume_point) {
        // Another stream than the client's, or one that never reached its
        // id: the topic goes on from where the reader stands.
        const char* reason = epoch != record->stream_epoch ? "stream-replaced" : "unknown-id";
        cut_history(*record, reason);
        record->stream_epoch = epoch;
        record->next_id = seq + 1;
        record->reset_base = seq;
      } else {
        read_after = resume_point;
      }
    } else if (record->adopting && record->read_on && epoch == record->stream_epoch) {
      read_on_from(*record, seq);
    } else if (epoch != 0) {
      if (record->stream_epoch == 0 || (record->adopting && epoch > record->stream_epoch)) {
        record->stream_epoch = epoch;
        record->adopting = false;
      }
      // Nothing kept yet: the topic begins where the reader does. Kept events
      // stay, and a reader that starts further on leaves a hole the loops
      // report as lost.
      if (!record->adopting && record->stream_epoch == epoch && record->history.empty() &&
          record->next_id != seq + 1) {
        // A rebase no subscriber is told of: whoever joined before the reader
        // found its place is owed what comes after it.
        record->next_id = seq + 1;
        record->reset_base = seq;
        ++record->resets;
      }
    }
  }
  notify_loops(*record, mask);
  return read_after;
}

// The stretch between the last id this node had and the stream's newest is
// read (what Redis trimmed of it shows as a hole, told as lost), so the
// subscribers that were told the stop get every event Redis still holds.
// One that joined since is owed only what comes after the newest the reader
// finds: it waits for stream_placed().
bool TopicBook::reader_follows_again(std::string_view name) {
  const TopicRef ref = find_pinned(name);
  if (!ref) return false;
  TopicRecord* record = ref.get();
  std::uint64_t mask = 0;
  {
    const std::lock_guard lock(record->mutex);
    if (!record->adopting || !record->read_on || !record->reader_stopped || record->stream_epoch == 0) return false;
    read_on_from(*record, record->read_on_base);
    record->reader_placed = false;
    record->place_seq = 0;
    mask = record->loop_mask;
  }
  notify_loops(*record, mask);
  return true;
}

void TopicBook::stream_placed(std::string_view name, std::uint64_t epoch, std::uint64_t seq) {
  const TopicRef ref = find_pinned(name);
  if (!ref) return;
  std::uint64_t mask = 0;
  {
    const std::lock_guard lock(ref->mutex);
    ref->reader_refused = false;  // the key was found readable
    if (ref->reader_placed || ref->adopting || epoch != ref->stream_epoch) return;
    ref->reader_placed = true;
    ref->place_seq = seq;
    mask = ref->loop_mask;
  }
  notify_loops(*ref.get(), mask);
}

bool TopicBook::reader_leaves(std::string_view name) {
  const TopicRef ref = find_pinned(name);
  if (!ref) return true;
  const std::lock_guard lock(ref->mutex);
  if (ref->loop_mask != 0) return false;
  ref->reader_placed = false;
  ref->place_seq = 0;
  return true;
}

TopicBook::FollowState TopicBook::follow_state(std::string_view name) const {
  const TopicRef ref = find_pinned(name);
  if (!ref) return {};
  const std::lock_guard lock(ref->mutex);
  const bool followed = ref->loop_mask != 0;
  if (ref->adopting && ref->read_on && ref->reader_stopped && ref->stream_epoch != 0) {
    return {followed, ref->stream_epoch, ref->read_on_base, ref->subscribers, true};
  }
  if (ref->adopting && ref->reader_refused) {
    const bool had = ref->read_on && ref->stream_epoch != 0;
    return {followed, had ? ref->stream_epoch : 0, had ? ref->read_on_base : 0, ref->subscribers, false, true};
  }
  // A start a resuming client set (resume_start) is not a place the reader
  // has read to: the reader locates the stream, and stream_started() judges
  // the client's id against it (an id past the stream is unknown-id, not a
  // stream rewound under a reader that never read it).
  const bool read = ref->stream_epoch != 0 && !ref->adopting && !ref->resume_start;
  return {followed, read ? ref->stream_epoch : 0, read ? ref->next_id - 1 : 0, ref->subscribers};
}

void TopicBook::stream_reset(std::string_view name, const char* reason, StreamAfterReset after) {
  const TopicRef ref = find_pinned(name);
  if (!ref) return;
  TopicRecord* record = ref.get();
  std::uint64_t mask = 0;
  {
    const std::lock_guard lock(record->mutex);
    // Whoever waits for the place is answered, then told the reason.
    const bool waited = !record->reader_placed;
    record->reader_placed = true;
    record->reader_refused = after == StreamAfterReset::refused;
    mask = record->loop_mask;
    if (record->adopting) {  // told already
      // A stream gone is not read on, whatever the reset after it says.
      if (after == StreamAfterReset::gone) record->read_on = false;
      if (after == StreamAfterReset::stopped) record->reader_stopped = true;
      if (!waited) return;
    } else {
      const bool read_on = after != StreamAfterReset::gone && record->stream_epoch != 0;
      const std::uint64_t last_had = record->next_id - 1;
      cut_history(*record, reason);
      record->adopting = true;
      record->read_on = read_on;
      record->read_on_base = last_had;
      record->reader_stopped = after == StreamAfterReset::stopped;
    }
  }
  notify_loops(*record, mask);
}

}  // namespace sluice::hub
