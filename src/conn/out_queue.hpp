// Owns: OutQueue, the frames waiting to go to one socket, in two lanes, and
// the flush that hands them to the kernel.
//
// A server that sends one event per TCP send, holds events until they are
// acknowledged, or waits for room for a whole event stalls on the first
// event bigger than the send buffer and crawls on small ones. Instead a
// flush gathers as many queued frames as the socket takes into one writev, resumes a frame that was cut
// in the middle, and releases each frame the moment the kernel has all of
// its bytes. Control frames (pong, close, heartbeat, handshake reply, error
// response) leave before data frames, but never inside a frame already on
// the wire. Both lanes have budgets; a push returns a status and never
// drops silently.
//
// An OutQueue belongs to the thread that owns its connection.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "buf/frame.hpp"
#include "conn/frame_ring.hpp"
#include "conn/writer.hpp"

namespace sluice::conn {

enum class EnqueueStatus : std::uint8_t {
  ok,
  over_budget,  // data lane: byte or frame budget spent; nothing was queued
  full,         // control lane: max_control_frames queued; nothing was queued
};

// Data bytes written between two looks that show a reader is reading
// (OutQueue::look_behind()), however large its frames. Also the least
// backlog (data waiting behind the frame on the wire) under which a reader
// counts as caught up, and the step by which a backlog must fall to count
// as coming down.
inline constexpr std::uint32_t kLookProgressBytes = 16 * 1024;
// The most backlog a reader may keep and still count as caught up: a
// quarter of its byte budget, between kLookProgressBytes and this. Enough
// for a reader that keeps some backlog between its publisher's bursts;
// little enough that readers holding the pool this way must be many (a
// thousand for the default 64 MiB pool).
inline constexpr std::size_t kLookCaughtUpBytes = 64 * 1024;

struct OutQueueLimits {
  std::size_t max_bytes = 1 << 20;  // data bytes not yet written
  std::size_t max_frames = 4096;    // data frames not yet fully written
  std::size_t max_control_frames = 16;
};

// Ring slots in the caller's memory, for a device with no heap after
// start-up: one per frame a lane can hold. Neither may be empty.
struct OutQueueMemory {
  std::span<QueuedFrame> control;
  std::span<QueuedFrame> data;
};

enum class FlushStatus : std::uint8_t {
  drained,  // nothing is left
  blocked,  // the socket is full (short write or -EAGAIN): arm EPOLLOUT
  error,    // the writer failed; `error` holds the errno value
  held,     // everything the allowance let through was written; data frames wait
};

// How much of the data lane one flush may start: whole frames, in order,
// adding up to at most `bytes`; with `one_frame`, the first one goes even
// when it alone is larger (a frame bigger than the allowance still flows).
// The rest of a frame in flight and control frames are never held back.
// The default holds nothing back. With `awaits_answer`, what it holds back
// waits only for the reader's answer to a question it has been asked
// (LatencyGate), not for a reader found behind: the queue is not backed up
// by it (backed_up()).
struct DataAllowance {
  std::size_t bytes = SIZE_MAX;
  bool one_frame = true;
  bool awaits_answer = false;
};

struct FlushResult {
  FlushStatus status;
  std::size_t bytes = 0;             // bytes the writer took
  std::size_t calls = 0;             // Writer::writev calls made
  std::size_t frames_completed = 0;  // frames fully written and released
  int error = 0;                     // errno when status == error
};


class OutQueue {
 public:
  explicit OutQueue(const OutQueueLimits& limits = {});
  // Never allocates: the lanes live in `memory`, which the caller keeps
  // alive as long as the queue, and hold at most as many frames as it has
  // slots (the limits' frame counts are cut down to them).
  OutQueue(const OutQueueLimits& limits, const OutQueueMemory& memory);

  // Appends a reference to `frame` to the data lane. Takes one reference;
  // released the moment the kernel has all of its bytes (or by
  // drop_oldest_data / clear). Returns over_budget, queueing nothing, when
  // budgeted_bytes() + frame.size() would pass max_bytes or data_frames()
  // is already max_frames; except that an empty data lane always takes one
  // frame, and one frame bigger than the budget on its own (an event still
  // deliverable; the pool bounds memory anyway) is taken whatever else is
  // queued, one at a time, without counting against the budget: the queue
  // holds at most that frame and a budget besides. Allocates only while
  // the ring doubles towards max_frames slots.
  // `label` stays with the frame (see pending_label()).
  [[nodiscard]] EnqueueStatus push_data(buf::FrameRef frame, FrameLabel label = {});

  // Appends the connection's last frame (a WebSocket close) behind every
  // data frame queued, whatever the budget: the protocol forbids data after
  // a close, so it cannot overtake them as control frames do. When the data
  // ring is full, the newest frame not yet on the wire makes room: what the
  // client gets before the close stays whole, so resuming from its last id
  // misses nothing (an older one dropped would be a gap it never hears of).
  void push_last(buf::FrameRef frame);

  // Appends a reference to `frame` to the control lane. Its frames leave
  // before any data frame that has not started on the wire. Returns full,
  // queueing nothing, when max_control_frames are queued.
  [[nodiscard]] EnqueueStatus push_control(buf::FrameRef frame);

  // Appends `bytes` to the newest queued control frame, which is never one
  // on the wire, when nobody else holds it and its last block has room;
  // returns false, changing nothing, otherwise. The bytes reach the wire
  // exactly where a frame of their own pushed now would: replies to
  // pipelined requests share blocks instead of taking one each.
  [[nodiscard]] bool append_control(std::string_view bytes);

  // Writes through `writer`: the rest of the frame in flight, then control
  // frames, then data frames, one iovec per block, at most kMaxGather iovecs
  // per writev. Repeats while the writer takes everything. Stops with
  // blocked after a short write or -EAGAIN, with error on any other
  // negative return (the queue keeps its frames; clear() it). Each frame is
  // released as soon as its last byte is taken; a frame cut in the middle
  // stays in flight and is resumed by the next flush. Empty frames complete
  // without a writev. Returns drained when the queue is empty, held when
  // only data frames past `allowance` are left.
  [[nodiscard]] FlushResult flush(Writer& writer, DataAllowance allowance = {});
  // The last flush left something unwritten (the writer or the allowance
  // stopped it): what waits now waits for the reader, not for the end of
  // the tick. `latest` replaces only such frames: events that merely came
  // in together, before any flush, all go to a reader with room for them,
  // and so do those an allowance held only until the reader answers
  // (DataAllowance::awaits_answer).
  [[nodiscard]] bool backed_up() const { return backed_up_; }
  // For a transport that takes the queue in pieces (HTTP/2 frames a
  // stream's queue as DATA, several flushes a round): its round is over,
  // and what is left waits for the reader, unless only an allowance that
  // awaits an answer held it (`awaiting_answer`).
  void end_round(bool awaiting_answer = false) { backed_up_ = !empty() && !awaiting_answer; }

  // Drops the oldest data frame that has not started on the wire and
  // returns its label, or nullopt when there is none.
  std::optional<FrameLabel> drop_oldest_data();

  // The data frames that have not started on the wire, oldest first: a
  // slow-consumer policy may look at them, drop them or replace them.
  [[nodiscard]] std::size_t pending_data() const { return data_.size(); }
  // The label of pending frame `i` (< pending_data()).
  [[nodiscard]] const FrameLabel& pending_label(std::size_t i) const { return data_.at(i).label; }
  // The bytes of pending frame `i` (< pending_data()).
  [[nodiscard]] std::size_t pending_bytes(std::size_t i) const { return data_.at(i).frame.size(); }
  // Takes pending frame `i` out of the queue; returns its label.
  FrameLabel remove_pending(std::size_t i);
  // Puts `frame` and `label` in the place of pending frame `i` (conflation);
  // returns the label it replaced. The byte budget is not checked here: the
  // caller checks it (delivery/policy.cpp's conflate()).
  FrameLabel replace_pending(std::size_t i, buf::FrameRef frame, FrameLabel label);

  // Releases every data frame that has not started on the wire; returns
  // the bytes they held. A frame in flight goes on: the byte stream stays
  // whole.
  std::size_t drop_pending_data();
  // Releases every frame, the one in flight included (the connection is
  // closing: its byte stream ends here).
  void clear();
  // Nothing queued and nothing in flight: both lanes give their heap slots
  // back, to take them again with the next frame (a quiet connection's).
  void give_back_slots();

  [[nodiscard]] bool empty() const;
  // Data bytes not yet written, the unwritten rest of a frame in flight
  // included.
  [[nodiscard]] std::size_t data_bytes() const { return data_bytes_; }
  // What of data_bytes() counts against the byte budget: all of it but the
  // frame over the budget on its own, if one is queued (push_data()). What
  // a reader is judged by.
  [[nodiscard]] std::size_t budgeted_bytes() const;
  // Data frames not yet fully written, a frame in flight included.
  [[nodiscard]] std::size_t data_frames() const;
  [[nodiscard]] std::size_t control_frames() const;
  // When the oldest data frame not yet fully written was published
  // (buf::FrameRef::published_ns), a frame in flight included; 0 when there
  // is none or it carries no event.
  [[nodiscard]] std::int64_t oldest_data_published_ns() const;
  // Bytes a flush would write before the first data frame not yet on the
  // wire, when a control frame is among them (the rest of the frame in
  // flight, then the control lane); 0 when no control frame waits. A writer
  // that keeps room for control traffic lets these bytes use it.
  [[nodiscard]] std::size_t control_bytes_ahead() const;
  [[nodiscard]] const OutQueueLimits& limits() const { return limits_; }

  // The owner's sweep looks at the reader's progress once a sweep. A look
  // that finds data waiting finds the reader behind when, since the look
  // before, it has taken neither a data frame whole nor kLookProgressBytes
  // of data (it stopped), or its backlog (what waits behind the frame on
  // the wire) neither came under a quarter of the byte budget (between
  // kLookProgressBytes and kLookCaughtUpBytes) nor fell a further
  // kLookProgressBytes below the lowest it reached since it was last under
  // (it reads, but no faster than its topics publish). Returns the looks in
  // a row that did, this one included (0: the reader took enough and is
  // catching up, or nothing waits). A reader that takes a frame now and
  // then to look alive, its queue kept full, is behind, however it varies
  // what it takes; one draining a burst, or taking a large frame with
  // little behind it, is not.
  std::uint32_t look_behind();
  // What the last look_behind() returned.
  [[nodiscard]] std::uint32_t looks_behind() const { return looks_behind_; }

 private:
  struct Batch;

  [[nodiscard]] Batch gather(struct iovec* iov, DataAllowance allowance) const;
  [[nodiscard]] FlushResult write_out(Writer& writer, DataAllowance allowance);
  std::size_t consume(std::size_t written, Writer& writer);
  bool start_next(std::size_t written, Writer& writer);
  std::size_t advance(std::size_t written);
  void finish_current();
  [[nodiscard]] bool current_is(bool data) const { return in_flight_ && current_is_data_ == data; }
  [[nodiscard]] bool oversized(const buf::FrameRef& frame) const;
  [[nodiscard]] bool holds_oversized() const;
  [[nodiscard]] std::uint32_t backlog() const {
    const std::size_t waiting = data_bytes_ - (current_is(true) ? current_left_ : 0);
    return static_cast<std::uint32_t>(std::min<std::size_t>(waiting, UINT32_MAX));
  }
  // Called wherever the backlog shrinks: the end of a flush (it only
  // shrinks during one) and each frame dropped or replaced.
  void note_backlog() { backlog_low_ = std::min(backlog_low_, backlog()); }
  [[nodiscard]] std::uint32_t caught_up_below() const {
    const std::size_t quarter = limits_.max_bytes / 4;
    return static_cast<std::uint32_t>(std::clamp<std::size_t>(quarter, kLookProgressBytes, kLookCaughtUpBytes));
  }

  OutQueueLimits limits_;
  detail::FrameRing control_;
  detail::FrameRing data_;
  std::size_t data_bytes_ = 0;
  std::size_t oversized_pending_bytes_ = 0;  // of the pending data frames over the budget on their own
  bool backed_up_ = false;
  // What look_behind() weighs, packed where the flag leaves room: whether
  // a data frame was fully written since the last look, the data bytes
  // written since (up to kLookProgressBytes), the lowest backlog since,
  // the mark a backed-up stretch must come down from (UINT32_MAX: the
  // backlog was under caught_up_below() at the last look), and what the
  // last look returned.
  bool frame_done_since_look_ = false;
  std::uint16_t bytes_since_look_ = 0;
  std::uint32_t backlog_low_ = 0;
  std::uint32_t backlog_mark_ = UINT32_MAX;
  std::uint32_t looks_behind_ = 0;

  // The frame in flight: some of its bytes are in the kernel, so nothing
  // may be written before its last byte. A flag, not current_'s nullness,
  // says whether there is one: a pushed FrameRef may be null (an empty
  // frame).
  buf::FrameRef current_;
  const buf::Block* current_block_ = nullptr;  // first block with unwritten bytes
  std::size_t current_offset_ = 0;             // written bytes of current_block_
  std::size_t current_left_ = 0;               // unwritten bytes of the frame
  bool in_flight_ = false;
  bool current_is_data_ = false;
};

}  // namespace sluice::conn
