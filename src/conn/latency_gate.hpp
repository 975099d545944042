// Owns: LatencyGate, which bounds how much of one connection's data sits
// between sluice and the reader's application, kernel queues included, so
// that a reader slower than its events reads fresh ones: the rest waits in
// sluice's queue, where `latest` replaces it (all but a burst held from a
// reader that keeps up, for the answer to a question; below).
//
// Before each flush the gate says how many data bytes may start (plan()),
// from what it knows of the reader's backlog (PeerBacklog):
// - A reader may have `window_frames` frames (of the size now waiting)
//   outstanding. A reader that read everything it was given within the
//   grace period, while the allowance was what stopped more, keeps up: its
//   allowance doubles (up to max_allowance), so a fast reader soon takes
//   whole drains and the gate stops asking the kernel while what it wrote
//   since its last look still fits. A reader with bytes unread for longer
//   than the grace period is behind: its allowance falls back to
//   window_frames frames at once.
// - Whenever the reader has read everything, one whole frame may go, so a
//   frame larger than the allowance still flows; a reader whose allowance
//   grew takes what waits then up to twice that allowance, as far as its
//   kernel takes it now (a burst that reached the loop in one tick).
// - Data only its missing ACK calls unread, on a short path with
//   everything acknowledged read, may be read: the reader's kernel may be
//   waiting out its delayed-ACK timer (a WebSocket that answers pings is
//   an interactive connection to it). Where the reader can be asked (below)
//   the gate asks, and its answer brings the ACK; the reader is judged
//   behind by what its kernel shows then, or as before once the answer is
//   late.
// - Control frames are never held back.
// The kernel is asked (one getsockopt, sometimes an ioctl) only when the
// bytes written since the last look might pass the allowance, and at least
// once per grace period while data flows: a reader that keeps up costs
// next to nothing per flush and nothing per event.
//
// While data is held the kernel says nothing when the reader reads, so the
// gate has its connection flushed again (GateChecks), 1 ms after the reader
// last moved and up to 16 ms apart while it does not. A read shows only in
// an ACK, and a read sends none unless an ACK was pending: when everything
// sent is acknowledged but not read, the gate queues a probe, a frame the
// client ignores (an SSE blank line, a WebSocket ping), so that the
// reader's next read has an ACK pending and its kernel answers at once
// with the window it has now. Probes back off from 5 ms to 160 ms apart
// while the reader reads no data (a probe it read is not progress).
// A window whose edge stands still while the gate holds may be wider than
// the reader's buffer now offers (PeerBacklog): the gate sends the padding
// the backlog asks for, control frames the client skips (GateFrames), in
// at most half the control lane; the backlog asks within the socket's
// padding budget (padding_per_second), and is told what went.
// A window short of the reader's first by less than a frame (or the most
// data one write carried lately, when that is more), once the reader's kernel has
// answered since the last data, counts as nothing unread: it is the
// window's rounding to whole segments, not a frame.
// A reader whose window moves in steps larger than the writes it gets
// (window scaling: PeerBacklog's window_unit, 1 KiB for an autotuned Linux
// buffer, against 64-byte frames) shows nothing unread in its window
// however much it holds: the kernel tells nothing, and loopback ACKs at
// once. Nor, within the rounding above, a frame under two steps long (a
// 1 KiB frame against 1 KiB steps) unread. Where the client answers a
// question only once it has read what came before it (a WebSocket ping:
// its pong follows every frame before it through the client's parser),
// the gate asks (ask_receipts()): one ask outstanding at most, written
// with data while the reader keeps up (once per kAskInterval, so that a
// reader falling behind is seen, and when it is held with data written
// since its last answer), and right after each release while it does
// not. Every answer counts the bytes before its ask as read, whatever the
// window shows (a window left a step short after a small read, which the
// reader's kernel sends no update for). An answer back later than the
// grace period and the path's round trip, or none within them, shows the
// reader behind (an ask is dated when the flush that writes it runs, an
// answer when it reached this host: receipt()): until its answers come
// back in time for a whole ask interval, data written since the last
// answer's ask counts as unread whatever the window says, and the
// allowance falls back to window_frames frames. A reader that answers in
// time is not held back until it answers; its window is trusted as
// before, and when the gate holds it the reader is asked at once (its
// answer says what it has read).
// What is held from it then, once its allowance grew and up to twice that
// allowance, waits for that answer rather than being stale to `latest`
// (DataAllowance::awaits_answer). Asks go
// only over a path whose round trip is shorter than the grace period
// (loopback, a LAN): over longer ones the window bounded such readers
// already, and asks cost them frames.
// Bytes sent that the path delivers within one round trip at its measured
// rate count as read (round_trip_credit.hpp): on a path whose round trip
// is long against a frame's time on it, the next frame then starts while
// the last one's tail is on its way, instead of a round trip after it.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "buf/frame.hpp"
#include "conn/gate_frames.hpp"
#include "conn/out_queue.hpp"
#include "conn/peer_backlog.hpp"
#include "io/loop.hpp"

namespace sluice::conn {

class GateChecks;

// Told what a gate does that its operator should see: where it cannot
// bound as its settings ask, and the bytes it spends on padding.
class GateReport {
 public:
  // The reader's window moves in steps larger than the frames it is sent,
  // over a path short enough that nothing else shows them unread, and the
  // reader answers no ask: its frames are held only to the window's
  // rounding, not to window_frames. Once per gate.
  virtual void window_cannot_show_frames() = 0;
  // `bytes` of padding were queued to the reader.
  virtual void padded(std::size_t bytes) = 0;

 protected:
  ~GateReport() = default;
};

// How a gate asks a reader whose transport carries a question of its own
// (an HTTP/2 PING, answered once every frame before it was read); a
// WebSocket's ping is a control frame instead (LatencyGate::ask_receipts).
class ReceiptAsker {
 public:
  // Asks; false when the question cannot go now (ask again later). Its
  // answer is told to the gate with receipt().
  virtual bool ask_receipt() = 0;

 protected:
  ~ReceiptAsker() = default;
};

// Where a reader's answers come in. An ask unanswered past its time is
// judged late only once no input that came in time waits unread there: the
// answer may be in it. The loop reads a socket's input after the flushes
// the tick's other events asked for when the socket's readiness did not
// fit the tick's batch of events, and not before the connection's turn in
// the read queue; judged then, an answer that came in time was late, and a
// reader that keeps up was taken for lagging.
class AnswerInbox {
 public:
  using Clock = std::chrono::steady_clock;
  // When the oldest input not read yet reached this host, or later, never
  // earlier (and no later than `now`); nullopt when none waits that the
  // loop is to read soon. Input the connection holds back (a message that
  // waits for room) counts as none: it may wait for long, and so would the
  // verdict.
  [[nodiscard]] virtual std::optional<Clock::time_point> unread_since(Clock::time_point now) = 0;

 protected:
  ~AnswerInbox() = default;
};

struct LatencyGateSettings {
  // Frames a reader that does not keep up may have between sluice and its
  // application, kernel queues included; at least 1.
  std::size_t window_frames = 2;
  // A reader that has had bytes unread longer than this does not keep up.
  std::chrono::milliseconds grace{20};
  // The most a reader that keeps up may have outstanding.
  std::size_t max_allowance = 256 << 10;
  // The padding a socket's reader may be sent: this many bytes a second,
  // after a first PeerBacklog::kPaddingBurst (0: none). Over HTTP/2 the
  // connection's first gate sets it for all its streams.
  std::size_t padding_per_second = PeerBacklog::kDefaultPaddingPerSecond;
  // Who is told; nobody when null.
  GateReport* report = nullptr;
};

class LatencyGate {
 public:
  using Clock = io::Loop::Clock;

  // A gate on socket `fd`, whose connection flushes through `flusher`;
  // `frames` are queued in its control lane. nullptr when the kernel does not
  // tell enough about `fd` to estimate its reader's backlog: the caller
  // then flushes as it would without one.
  [[nodiscard]] static std::unique_ptr<LatencyGate> make(int fd, const LatencyGateSettings& settings,
                                                         GateChecks& checks, io::Deferred& flusher,
                                                         GateFrames frames, Clock::time_point now);
  // A gate whose reader's backlog `source` tells (one stream of a
  // connection that carries many); nullptr when its first sample fails.
  [[nodiscard]] static std::unique_ptr<LatencyGate> make(std::unique_ptr<BacklogSource> source,
                                                         const LatencyGateSettings& settings, GateChecks& checks,
                                                         io::Deferred& flusher, GateFrames frames,
                                                         Clock::time_point now);
  ~LatencyGate();
  LatencyGate(const LatencyGate&) = delete;
  LatencyGate& operator=(const LatencyGate&) = delete;

  // Called before each flush of `queue`: what the flush may write. May
  // queue a probe in the control lane. Never allocates.
  [[nodiscard]] DataAllowance plan(Clock::time_point now, OutQueue& queue);
  // Called after that flush, with its result and the data bytes it wrote.
  void flushed(Clock::time_point now, const FlushResult& result, std::size_t data_written);

  // The last plan() let less than all of the waiting data go.
  [[nodiscard]] bool holding() const { return holding_; }
  // A sample failed after the gate started (the socket went bad): the gate
  // holds nothing back any more.
  [[nodiscard]] bool failed() const { return failed_; }
  // What a reader may have outstanding beyond window_frames frames (0
  // until it has shown that it keeps up).
  [[nodiscard]] std::size_t grown_allowance() const { return grown_; }
  [[nodiscard]] io::Deferred& flusher() { return flusher_; }

  // The reader answers `ask`, a control frame, once it has read every byte
  // before it (a WebSocket ping with a payload of its own): the gate may ask
  // it what it has read when its window cannot tell (above). Its answers
  // come in through `inbox` (which outlives the gate), when given.
  void ask_receipts(buf::FrameRef ask, AnswerInbox* inbox = nullptr) {
    ask_ = std::move(ask);
    inbox_ = inbox;
  }
  // The reader is asked through `asker` (which outlives the gate).
  void ask_receipts(ReceiptAsker& asker, AnswerInbox* inbox = nullptr) {
    asker_ = &asker;
    inbox_ = inbox;
  }
  // The answer to the gate's ask came: the reader has read what preceded
  // it. An answer nobody asked for changes nothing. `arrived` is when the
  // answer reached this host where the kernel says
  // (Connection::input_arrival), not when the loop read it: a loop that
  // stalled past the grace period would otherwise find every answer that
  // came meanwhile late, and blame its readers for its own stall.
  void receipt(Clock::time_point arrived);
  // The reader's window moves in steps larger than half the data of any
  // write lately: it cannot show those writes unread.
  [[nodiscard]] bool window_blind() const;
  // By its answers the reader does not keep up: its window is not trusted
  // (only while asks_tell()).
  [[nodiscard]] bool lagging() const { return lagging_; }

 private:
  friend class GateChecks;
  static constexpr std::size_t kNoSlot = SIZE_MAX;
  static constexpr std::size_t kMarks = 16;

  // Bytes up to stream offset `end` were written at `time`.
  struct Mark {
    std::uint64_t end;
    Clock::time_point time;
  };

  LatencyGate(std::unique_ptr<BacklogSource> source, const LatencyGateSettings& settings, GateChecks& checks,
              io::Deferred& flusher, GateFrames frames);
  bool sample(Clock::time_point now, std::size_t floor, bool allowance_bound);
  // What a hold holds (`held` bytes) waits for the answer to the ask
  // outstanding (DataAllowance::awaits_answer).
  [[nodiscard]] bool awaits_answer(std::size_t held) const;
  void maybe_probe(Clock::time_point now, OutQueue& queue);
  void pad(Clock::time_point now, OutQueue& queue);
  // Whether the reader's answers, not its window, say what it has read.
  [[nodiscard]] bool receipts_rule() const { return lagging_ && asks_tell(); }
  // The reader's window cannot show its writes unread, and the path is
  // short enough that nothing else does.
  [[nodiscard]] bool window_tells_nothing() const;
  // The reader answers asks, and they are needed (above).
  [[nodiscard]] bool asks_tell() const { return can_ask() && window_tells_nothing(); }
  [[nodiscard]] bool can_ask() const { return ask_ || asker_ != nullptr; }
  void report_loose();
  void maybe_ask(Clock::time_point now, OutQueue& queue);
  // Asks now; false when the ask cannot go.
  bool ask(Clock::time_point now, OutQueue& queue);
  // Everything the reader's kernel acknowledged was read, and data is still
  // unacknowledged (or unsent) on a path too short for it to be on its
  // way: its ACK may be waiting out the reader kernel's delayed-ACK timer,
  // which an ask's answer cuts short.
  [[nodiscard]] bool ack_may_be_delayed() const {
    return unread_ == 0 && in_flight_ > 0 && round_trip_ < settings_.grace;
  }
  // An answer to the ask asked at asked_at_ comes late after `now`: the
  // grace period, and the path's round trip, which every answer takes.
  [[nodiscard]] bool answer_late(Clock::time_point now) const {
    return now - asked_at_ > settings_.grace + round_trip_;
  }
  // The answer is late at `now`, and no input that came in time waits
  // unread (AnswerInbox): the reader has not answered in time.
  [[nodiscard]] bool answer_overdue(Clock::time_point now);
  void add_mark(Clock::time_point now);
  // The most data one write carried within the reader's window memory
  // (PeerBacklog): about the largest segment its window may be rounded to.
  void note_write(Clock::time_point now, std::size_t bytes);
  [[nodiscard]] std::size_t largest_write() const { return std::max(current_write_, previous_write_); }
  // When the oldest byte the reader has not consumed was written; drops
  // the marks it has consumed. False when it has consumed every byte.
  bool oldest_unconsumed(Clock::time_point& written);
  // Data bytes the reader may not have consumed yet.
  [[nodiscard]] std::size_t outstanding_data() const;

  std::unique_ptr<BacklogSource> backlog_;
  LatencyGateSettings settings_;
  GateChecks& checks_;
  io::Deferred& flusher_;
  GateFrames frames_;
  std::size_t check_slot_ = kNoSlot;  // GateChecks' index, while a check is due

  std::uint64_t written_ = 0;           // bytes written through this gate's flushes
  std::uint64_t consumed_ = 0;          // of those, read by the reader at the last sample
  std::size_t unconsumed_ = 0;          // the backlog at the last sample
  std::size_t unsampled_ = 0;           // bytes written since the last sample
  std::size_t control_since_data_ = 0;  // control bytes written after the last data
  std::size_t control_unsampled_ = 0;   // control bytes written since the last sample
  std::size_t in_flight_ = 0;           // unacknowledged or unsent at the last sample
  std::size_t unread_ = 0;              // acknowledged but unread at the last sample
  std::size_t arriving_ = 0;            // of in_flight_, what the path delivers within a round trip
  std::size_t grown_ = 0;               // allowance grown for a reader that keeps up
  std::size_t window_unit_ = 1;         // the step the reader's window moves in, at the last sample
  std::size_t padding_ = 0;             // padding the last sample asked for, not yet queued
  std::size_t room_ = 0;                // what the reader's kernel would take, at the last sample
  Clock::duration round_trip_{};        // the path's least round trip, at the last sample

  buf::FrameRef ask_;                // the ask as a control frame; null: none
  ReceiptAsker* asker_ = nullptr;    // or who asks; null: none
  AnswerInbox* inbox_ = nullptr;     // where its answers come in; null: not told
  Clock::time_point inbox_looked_at_{};  // when answer_overdue() last asked inbox_
  bool answer_may_wait_ = false;         // what it found: input that came in time waits unread
  bool asking_ = false;              // an ask queued or written, its answer not back
  bool lagging_ = false;             // the last answer came late, or none came in time
  std::uint64_t data_written_ = 0;   // data bytes written through this gate's flushes
  std::uint64_t asked_data_ = 0;     // of those, written before the ask outstanding
  std::uint64_t receipted_data_ = 0;  // of those, read by the reader's last answer
  std::uint64_t asked_ = 0;          // bytes written before the ask outstanding (at least)
  std::uint64_t receipted_ = 0;      // bytes read by the reader's last answer (at least)
  Clock::time_point asked_at_{};
  Clock::time_point in_time_since_{};  // lagging: the first of the answers in time since the last late one
  bool holding_ = false;
  bool asked_while_holding_ = false;  // the ask outstanding went while the gate held
  bool answered_ = false;             // an answer to such an ask came since the last plan()
  bool held_past_answer_ = false;     // held since a plan() that followed such an answer
  bool ack_owed_ = false;  // the last sample found data unread too long by its ACK alone
  bool failed_ = false;
  bool reported_loose_ = false;

  std::size_t current_write_ = 0;   // the most data of one write in this memory period
  std::size_t previous_write_ = 0;  // in the one before
  Clock::time_point write_period_end_{};

  Clock::time_point last_sample_{};
  Clock::duration check_interval_;
  Clock::time_point next_probe_{};
  Clock::duration probe_gap_;

  std::array<Mark, kMarks> marks_{};
  std::size_t marks_head_ = 0;
  std::size_t marks_count_ = 0;
};

}  // namespace sluice::conn
