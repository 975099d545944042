// Owns: History, one topic's recent events, kept for two readers: the loops
// that fan them out (each reads what it has not yet delivered) and replay
// (Last-Event-ID, a WebSocket `since`). Bounded by a count and by bytes;
// the frames are shared, so history costs pool blocks, not copies.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "buf/frame.hpp"
#include "hub/wire_form.hpp"

namespace sluice::hub {

struct KeptEvent {
  std::uint64_t seq = 0;
  std::uint64_t key = 0;   // conflation key
  std::chrono::steady_clock::time_point published{};  // for the admin API's ages and rates
  // The epoch its id is written with: 0 for the server run's own, else the
  // millisecond its topic's Redis Stream was created (a broker's topics).
  std::uint64_t epoch = 0;
  buf::FrameRef sse;       // the event as SSE, shared by every SSE subscriber; empty when its topic had none
  // One byte of event-name length, the name, the data. Empty for an event
  // with no name whose WebSocket message (ws_message) carries the data: that
  // frame is then the payload, and a small event costs one frame less.
  buf::FrameRef payload;
  std::array<buf::FrameRef, kWsForms> ws;  // by ws_index(): the forms some subscriber used when it was published

  // Stamps every form with `published`, before the event is shared.
  void stamp_frames() {
    const std::int64_t ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(published.time_since_epoch()).count();
    sse.set_published_ns(ns);
    payload.set_published_ns(ns);
    for (buf::FrameRef& f : ws) f.set_published_ns(ns);
  }

  // Gives the frames back (an evicted event's slot keeps only its numbers,
  // which the next event's overwrite).
  void release_frames() {
    sse.reset();
    payload.reset();
    for (buf::FrameRef& f : ws) f.reset();
  }

  // A copy whose frames take no count (buf::FrameRef::uncounted), for a
  // reader whose events the history is known to keep meanwhile; given up
  // with forget_frames(), never destroyed with its handles. Built in place
  // (the drain's vector): a copy made and then moved in added a fifth to
  // the drain's instructions per event.
  struct Uncounted {};
  KeptEvent() = default;
  KeptEvent(const KeptEvent& counted, Uncounted)
      : seq(counted.seq),
        key(counted.key),
        published(counted.published),
        epoch(counted.epoch),
        sse(buf::FrameRef::uncounted(counted.sse)),
        payload(buf::FrameRef::uncounted(counted.payload)) {
    for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = buf::FrameRef::uncounted(counted.ws[i]);
  }
  void forget_frames() {
    sse.forget();
    payload.forget();
    for (buf::FrameRef& f : ws) f.forget();
  }

  // The frame of `form` kept with the event (empty when nobody used that
  // form when it was published).
  [[nodiscard]] const buf::FrameRef& kept(WireForm form) const {
    return form == WireForm::sse ? sse : ws[ws_index(form)];
  }
  // Bytes of the payload, whichever frame holds it.
  [[nodiscard]] std::size_t payload_size() const;
  // Bytes of the event's data.
  [[nodiscard]] std::size_t data_size() const;

  [[nodiscard]] std::size_t bytes() const {
    std::size_t n = sse.size() + payload.size();
    for (const buf::FrameRef& f : ws) n += f.size();
    return n;
  }
};

class History {
 public:
  History(std::size_t max_events, std::size_t max_bytes);

  // Appends (seq is one more than the last one's), evicting the oldest
  // events that no longer fit.
  void push(KeptEvent&& event);
  // Gives back the oldest event's blocks; false when empty.
  bool evict_oldest();

  // The seq of the newest event that pushing one of `bytes` would evict
  // (push() evicts as many as the bounds need: a large event may push out
  // several small ones); nullopt when it would evict none.
  // Inline: out of line, the optional it returns was put together on the
  // stack and its flag byte read back within a wider load, which waits for
  // the store to land (a profile put most of the function's time there).
  [[nodiscard]] std::optional<std::uint64_t> newest_evicted_by(std::size_t bytes) const {
    std::size_t kept = size_;
    std::size_t kept_bytes = bytes_;
    std::size_t evicted = 0;
    while (must_evict(kept, kept_bytes, bytes)) {
      kept_bytes -= slots_[slot_of(evicted)].bytes;
      --kept;
      ++evicted;
    }
    if (evicted == 0) return std::nullopt;
    return at(evicted - 1).seq;
  }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  // The i-th kept event, oldest first; i < size().
  [[nodiscard]] const KeptEvent& at(std::size_t i) const { return slots_[slot_of(i)].event; }
  [[nodiscard]] std::uint64_t oldest_seq() const { return at(0).seq; }
  // The index of the first kept event with a seq past `seq` (size() when
  // none): seqs only grow along the history, so a loop that finds where its
  // news starts costs a binary search, not a walk over every kept event.
  [[nodiscard]] std::size_t first_after(std::uint64_t seq) const;

 private:
  // A kept event with its size, counted once as it goes in: the bounds
  // are checked on every publish, and counting again would read the frames'
  // headers, the oldest event's long out of cache by then.
  struct Slot {
    KeptEvent event;
    std::size_t bytes = 0;
  };

  // Whether `kept` events of `kept_bytes` must lose their oldest for one of
  // `bytes` to go in (push() and newest_evicted_by() alike).
  [[nodiscard]] bool must_evict(std::size_t kept, std::size_t kept_bytes, std::size_t bytes) const {
    return kept > 0 && (kept >= max_events_ || kept_bytes + bytes > max_bytes_);
  }
  // The slot of the i-th kept event (i < capacity_). A compare, not a
  // division: it is taken per event on every publish and delivery.
  [[nodiscard]] std::size_t slot_of(std::size_t i) const {
    const std::size_t slot = head_ + i;
    return slot < capacity_ ? slot : slot - capacity_;
  }
  void grow();

  std::unique_ptr<Slot[]> slots_;
  std::size_t capacity_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t bytes_ = 0;
  std::size_t max_events_;
  std::size_t max_bytes_;
};

}  // namespace sluice::hub
