#include "conn/latency_gate.hpp"

#include <algorithm>
#include <utility>

#include "conn/gate_checks.hpp"

namespace sluice::conn {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstCheck{1};
constexpr milliseconds kMaxCheck{16};
constexpr milliseconds kFirstProbeGap{5};
constexpr milliseconds kMaxProbeGap{160};
// How often a reader blind to small writes that keeps up is asked what it
// has read: a reader that falls behind shows within this and the grace
// period, and one that keeps up costs a ping and a pong per interval at most
// while it is not held (a hold asks too, at most once per release; plan()).
constexpr milliseconds kAskInterval{100};

}  // namespace

std::unique_ptr<LatencyGate> LatencyGate::make(int fd, const LatencyGateSettings& settings, GateChecks& checks,
                                               io::Deferred& flusher, GateFrames frames, Clock::time_point now) {
  return make(std::make_unique<PeerBacklog>(fd, settings.padding_per_second), settings, checks, flusher,
              std::move(frames), now);
}

std::unique_ptr<LatencyGate> LatencyGate::make(std::unique_ptr<BacklogSource> source,
                                               const LatencyGateSettings& settings, GateChecks& checks,
                                               io::Deferred& flusher, GateFrames frames, Clock::time_point now) {
  if (!frames.probe || !source) return nullptr;
  std::unique_ptr<LatencyGate> gate(new LatencyGate(std::move(source), settings, checks, flusher, std::move(frames)));
  // The first sample is also the first look at the reader's window, taken
  // before any data of ours can have narrowed it.
  const std::optional<Backlog> first = gate->backlog_->sample(now);
  if (!first) return nullptr;
  gate->window_unit_ = first->window_unit;
  gate->round_trip_ = first->round_trip;
  gate->last_sample_ = now;
  return gate;
}

LatencyGate::LatencyGate(std::unique_ptr<BacklogSource> source, const LatencyGateSettings& settings,
                         GateChecks& checks, io::Deferred& flusher, GateFrames frames)
    : backlog_(std::move(source)),
      settings_(settings),
      checks_(checks),
      flusher_(flusher),
      frames_(std::move(frames)),
      check_interval_(kFirstCheck),
      probe_gap_(kFirstProbeGap) {
  settings_.window_frames = std::max<std::size_t>(settings_.window_frames, 1);
}

LatencyGate::~LatencyGate() { checks_.cancel(*this); }

DataAllowance LatencyGate::plan(Clock::time_point now, OutQueue& queue) {
  holding_ = false;
  const bool answered = std::exchange(answered_, false);
  const bool held_past_answer = std::exchange(held_past_answer_, false);
  if (failed_) return {};
  maybe_ask(now, queue);
  const std::size_t pending = queue.data_bytes();
  const std::size_t frames = queue.data_frames();
  if (pending == 0 || frames == 0) return {};
  const std::size_t floor = settings_.window_frames * std::max<std::size_t>(pending / frames, 1);
  // Data written since the ask the reader last answered, when its answers
  // say what it has read: unread, whatever its window shows.
  const std::size_t unanswered = receipts_rule() ? data_written_ - receipted_data_ : 0;
  // What was written since the last look counts as unread: while all of
  // it and everything waiting still fit, the kernel need not be asked,
  // except once per grace period (a reader that stopped must be seen).
  const bool fits = std::max(outstanding_data(), unanswered) + pending <= std::max(floor, grown_);
  if (fits && now - last_sample_ < settings_.grace) return {};
  if (!sample(now, floor, !fits)) return {};
  std::size_t outstanding = outstanding_data();
  // A reader that has shown it keeps up (its allowance grew) and has read
  // every byte takes a burst larger than its allowance (events that reached
  // the loop in one tick, after a stall of its own), which was held as if
  // the reader were behind while `latest` replaced the frames held. Up to
  // twice its allowance, as one more look would grow it, and as far as its
  // kernel takes it now: a reader that takes one small frame per read earns
  // an allowance too, and a burst as large as its window would sit there
  // for many reads.
  const bool burst = grown_ > 0 && outstanding == 0 && unanswered == 0;
  const std::size_t burst_bytes = burst ? std::min({pending, room_, 2 * grown_, settings_.max_allowance}) : 0;
  const std::size_t allowance = std::max({floor, grown_, burst_bytes});
  // What the path delivers within a round trip will be there before a
  // frame written now: waiting for it to be read too idles the path.
  outstanding -= std::min(outstanding, arriving_);
  // The reader's window moves in whole segments: a buffer that segments of
  // this size do not divide offers less than its first window even when
  // empty (a 4 KiB one reading 1049-byte frames: 3147 bytes, 949 short).
  // Less than one frame short, once a frame after the data was acknowledged
  // (the reader's kernel has shown its window since), is that remainder,
  // not a frame unread; holding on it kept a reader that had read
  // everything waiting until its window's edge had stood still a quarter
  // of a second, and padding had shown a read (PeerBacklog).
  // The segments are our writes: after a write of several frames (a grown
  // allowance) the remainder can be up to that write, and held on it the
  // reader waited that long with nothing unread. A
  // write's data only, on a socket of its own: counting the notices and
  // probes written with a frame let one frame more into the kernel for
  // good. An HTTP/2 stream's whole write: over HTTP/2, without it, one
  // slot in five of a 20/s reader's saw no event.
  const std::size_t segment = std::max(pending / frames, largest_write());
  if (outstanding < segment && in_flight_ == 0 && control_since_data_ > 0) outstanding = 0;
  outstanding = std::max(outstanding, unanswered);
  const std::size_t room = allowance > outstanding ? allowance - outstanding : 0;
  holding_ = pending > room && !(outstanding == 0 && frames == 1);
  held_past_answer_ = holding_ && (held_past_answer || answered);
  // Held, or found behind by data that only its ACK says is unread: the
  // answer to an ask brings that ACK at once, where the reader's kernel
  // would wait out its delayed-ACK timer (40 ms and more for a connection
  // it judges interactive, as a WebSocket that answers pings is). Without
  // it a fast reader's frame waited for that timer at every hold, and
  // `latest` replaced the frames behind it. An ask that cannot go (the
  // control lane full) leaves nothing to wait for.
  // Held, where the window cannot show the reader's frames, while its
  // answers come in time, with data written since the last answer: asked
  // at once, not at the next ask interval. Such a window is left a step
  // short by any byte unread when the reader's kernel last acknowledged,
  // and its kernel sends no update for a small read; a fast reader held
  // on it waited for the next ask (up to 100 ms), and under a loop that
  // stalled now and then `latest` replaced most of its frames. The answer
  // says what it has read. Only about data written since the last answer:
  // a stream its client never lets data into (an HTTP/2 window of 0) is
  // held for good, and would otherwise be asked once per answer, a PING
  // every round trip with nothing moving.
  const bool held_by_blind_window = holding_ && asks_tell() && !lagging_ && data_written_ != receipted_data_;
  const bool ask_now =
      !asking_ && can_ask() && (((holding_ || ack_owed_) && ack_may_be_delayed()) || held_by_blind_window);
  if (ask_now && !ask(now, queue) && ack_owed_) {
    ack_owed_ = false;
    grown_ = 0;
  }
  if (holding_) {
    pad(now, queue);
    maybe_probe(now, queue);
  }
  padding_ = 0;
  return {room, outstanding == 0, holding_ && awaits_answer(pending - std::min(pending, room))};
}

// A reader that has shown it keeps up (its allowance grew) and answers in
// time, held while it is asked what its window cannot show or what an ACK
// its kernel may be delaying would: the held frames wait for its answer, which
// comes within a round trip and usually lets them go; they are not stale.
// Had `latest` replaced them, a burst of events that reached the loop in
// one tick (after a stall of its own) lost all but what the allowance let
// go: 20 of 20 bench readers lost 5-19 frames each, once per stall of
// 40 ms. Stale they are, as before:
// - once the answer is late: the reader is lagging (so they wait at most
//   the grace period and a round trip);
// - once an answer came and the reader is still held: it answered in time
//   but has not read enough to take them (slower than its events, if not
//   than the clock). Waiting answer after answer, an HTTP/2 reader five
//   times slower than its events (H2LatestWindow's) was handed frames 80
//   events behind the newest, where it should see at most 10;
// - while its window shows data unread past a step of its rounding, which
//   no answer explains away (with the rule above alone that reader still
//   read frames 32-35 behind);
// - past what a reader that keeps up takes at once when its answer shows
//   it has read everything (twice its allowance, plan()'s burst), and so
//   from a reader that has not shown it keeps up: should the events stop,
//   what was not replaced is read, and it must be no more than that (with
//   the two above alone that reader read frames 11 behind, against 9
//   without any of this).
// An answer ends the wait only for a hold it was asked for: one asked
// before the hold says nothing of what the hold waits for.
bool LatencyGate::awaits_answer(std::size_t held) const {
  if (!asking_ || lagging_ || held_past_answer_ || unread_ > window_unit_) return false;
  return held <= std::min(2 * grown_, settings_.max_allowance);
}

void LatencyGate::flushed(Clock::time_point now, const FlushResult& result, std::size_t data_written) {
  if (failed_) return;
  if (result.bytes > 0) {
    note_write(now, backlog_->shares_segments() ? result.bytes : data_written);
    written_ += result.bytes;
    unsampled_ += result.bytes;
    add_mark(now);
  }
  if (data_written > 0) {
    // New data: a probe may follow it as soon as all of it is acknowledged.
    next_probe_ = now;
    probe_gap_ = kFirstProbeGap;
    control_since_data_ = 0;
    report_loose();
  }
  // Control frames written with the data may have gone before it; counting
  // them as after it only makes the reader look further behind.
  const std::size_t control = result.bytes - std::min(result.bytes, data_written);
  control_since_data_ += control;
  control_unsampled_ += control;
  if (result.status == FlushStatus::held) {
    checks_.schedule(*this, std::max(now, last_sample_ + check_interval_));
  } else {
    checks_.cancel(*this);
  }
  data_written_ += data_written;
  // A reader behind by its answers is asked right after each release, so
  // that its answer comes the moment it has read it: the ask goes in the
  // next flush, ahead of any data that flush writes.
  if (data_written > 0 && lagging_ && !asking_ && asks_tell()) checks_.schedule(*this, now);
}

void LatencyGate::receipt(Clock::time_point arrived) {
  if (!asking_ || failed_) return;
  asking_ = false;
  answered_ = holding_ && asked_while_holding_;
  receipted_data_ = asked_data_;
  receipted_ = asked_;
  // Late: it was behind, as it would have been found had the gate looked.
  if (answer_late(arrived)) {
    lagging_ = true;
    in_time_since_ = {};
    if (asks_tell()) grown_ = 0;
    return;
  }
  // In time, for a whole ask interval of asks after each release: the
  // reader keeps up, and its window is trusted again. One answer in time
  // is not enough: a reader that fell behind its own pace reads at once
  // while it catches up, and trusted then, its blind window let in an ask
  // interval of frames (10 at 100/s) that it found a read interval or
  // more later, 200-290 ms old.
  if (!lagging_) return;
  if (in_time_since_ == Clock::time_point{}) in_time_since_ = asked_at_;
  if (arrived - in_time_since_ >= kAskInterval) lagging_ = false;
}

// Under two steps, not under one: the window counts a shortfall of less
// than a write as its rounding, not a frame unread (plan()), and a frame
// of about a step (1 KiB against 1 KiB) can hide whole in that rounding.
// Behind an autotuned buffer such frames reached the reader a frame late,
// at about two of its read intervals instead of one.
bool LatencyGate::window_blind() const { return window_unit_ > 1 && largest_write() < 2 * window_unit_; }

// Only over a short path (loopback, a LAN): there the reader's kernel
// acknowledges at once and nothing else shows. Through a link of 3 Mbit/s
// and 40 ms (the bench's packet link) the window already held 64-byte
// frames to a reader of 20/s at 30 ms, and asks cost that reader a third of
// its frames (257 of 400 read, against 397).
bool LatencyGate::window_tells_nothing() const { return window_blind() && round_trip_ < settings_.grace; }

// Said once per gate: a stream held more loosely than configured is never
// silent about it.
void LatencyGate::report_loose() {
  if (reported_loose_ || can_ask() || settings_.report == nullptr || !window_tells_nothing()) return;
  reported_loose_ = true;
  settings_.report->window_cannot_show_frames();
}

void LatencyGate::maybe_ask(Clock::time_point now, OutQueue& queue) {
  if (!can_ask()) return;
  if (asking_) {
    // No answer in time (the grace period and a round trip): the reader has not read what was
    // written before the ask, as a window showing it unread would say.
    if (!lagging_ && answer_overdue(now)) {
      lagging_ = true;
      if (asks_tell()) grown_ = 0;
    }
    return;
  }
  if (!asks_tell() || data_written_ == receipted_data_) return;
  // Behind: at once, for what was released since the last answer. Keeping
  // up: now and then, with data (the ask goes ahead of it in the same
  // write, so it costs no write of its own).
  if (!lagging_ && (queue.data_bytes() == 0 || now - asked_at_ < kAskInterval)) return;
  (void)ask(now, queue);
}

// Input waits only for the loop to read it, in the same tick or the next:
// the verdict waits with it. Input that came after the deadline says the
// answer, which comes no earlier, was late. A reader found lagging already
// is not looked at again, and one plan() looks once (its ask and its sample
// both ask).
bool LatencyGate::answer_overdue(Clock::time_point now) {
  if (!answer_late(now)) return false;
  if (inbox_ == nullptr || lagging_) return true;
  if (now != inbox_looked_at_) {
    const std::optional<Clock::time_point> waiting = inbox_->unread_since(now);
    inbox_looked_at_ = now;
    answer_may_wait_ = waiting && !answer_late(*waiting);
  }
  return !answer_may_wait_;
}

bool LatencyGate::ask(Clock::time_point now, OutQueue& queue) {
  if (asker_ != nullptr ? !asker_->ask_receipt() : queue.push_control(ask_) != EnqueueStatus::ok) return false;
  asking_ = true;
  asked_while_holding_ = holding_;
  asked_at_ = now;
  asked_data_ = data_written_;
  asked_ = written_;
  return true;
}

bool LatencyGate::sample(Clock::time_point now, std::size_t floor, bool allowance_bound) {
  const std::optional<Backlog> backlog = backlog_->sample(now);
  if (!backlog) {
    failed_ = true;
    checks_.cancel(*this);
    return false;
  }
  // When the oldest byte unread at the last look was written.
  Clock::time_point oldest{};
  const bool was_behind = oldest_unconsumed(oldest);
  last_sample_ = now;
  // The reader's answer says it read every byte before the ask, whatever
  // its window shows: a window a step short of the largest it offered,
  // after the reader read everything (its kernel sends no update for a
  // small read), held a fast reader until padding showed the read, 300 ms
  // of its frames replaced by `latest`.
  unconsumed_ = std::min<std::uint64_t>(backlog->total(), written_ - receipted_);
  unsampled_ = 0;
  in_flight_ = backlog->in_flight;
  unread_ = backlog->unread;
  arriving_ = backlog->arriving;
  window_unit_ = backlog->window_unit;
  round_trip_ = backlog->round_trip;
  padding_ = backlog->padding;
  room_ = backlog->room;
  const std::uint64_t consumed = written_ > unconsumed_ ? written_ - unconsumed_ : 0;
  // Progress is data read. A probe read is not: the reader's window moves
  // in whole segments, so a one-byte probe looks read the moment it is
  // acknowledged, whatever the reader did. Counting it sent the next probe
  // at once, one per look (about 700/s to a reader of 1 KiB frames behind
  // a 4 KiB buffer); each costs that buffer a whole packet's memory, not
  // one byte, so the reader's kernel closed its window and dropped data,
  // and the frame waited out a retransmission or a zero-window probe
  // timer: 200 ms and more, the age spikes of 200-240 ms.
  const bool progress = consumed > consumed_ + control_unsampled_;
  ack_owed_ = false;
  control_unsampled_ = 0;
  consumed_ = std::max(consumed_, consumed);
  if (progress) {
    next_probe_ = now;
    probe_gap_ = kFirstProbeGap;
  }
  check_interval_ = progress ? Clock::duration(kFirstCheck) : std::min<Clock::duration>(2 * check_interval_, kMaxCheck);
  Clock::time_point still{};
  if (outstanding_data() == 0 || !oldest_unconsumed(still)) {
    // Everything read, some of it since the last look, within the grace
    // period of its writing, while the allowance was what stopped more:
    // the reader keeps up.
    if (allowance_bound && progress && (!was_behind || now - oldest <= settings_.grace) && !receipts_rule()) {
      grown_ = std::min(2 * std::max(grown_, floor), settings_.max_allowance);
    }
  } else if (now - still > settings_.grace) {
    // Unacknowledged only, on a short path: its reader may well have read
    // it, and an ask will tell (plan()). Judged by what its kernel shows
    // once the ACK has come, or as now once the answer is late: a segment
    // lost on the way, or an HTTP/2 socket blocked by another stream,
    // keeps the ask from being answered, not the reader behind from being
    // seen.
    ack_owed_ = can_ask() && ack_may_be_delayed() && !(asking_ && answer_overdue(now));
    if (!ack_owed_) grown_ = 0;
  }
  return true;
}

void LatencyGate::maybe_probe(Clock::time_point now, OutQueue& queue) {
  // A probe helps only when no ACK is pending at the reader (all we sent is
  // acknowledged) and something sits unread there.
  if (unread_ == 0 || in_flight_ != 0 || now < next_probe_) return;
  if (queue.push_control(frames_.probe) != EnqueueStatus::ok) return;
  next_probe_ = now + probe_gap_;
  probe_gap_ = std::min<Clock::duration>(2 * probe_gap_, kMaxProbeGap);
}

// The padding goes in whole frames: wide ones while the rest is within a
// narrow one of them, then narrow ones, so it passes what was asked by
// less than a narrow frame. At most half the control lane: notices and
// closes queued after it still find room (with a lane of two or three
// frames, at most one padding frame goes per padding asked for). Without
// padding frames (the pool had no room when the stream was bound) none
// goes either. What goes is spent from the socket's padding budget.
void LatencyGate::pad(Clock::time_point now, OutQueue& queue) {
  if (!frames_.padding || padding_ == 0) return;
  std::size_t left = padding_;
  std::size_t queued = 0;
  while (left > 0 && 2 * (queue.control_frames() + 1) <= queue.limits().max_control_frames) {
    const bool wide = frames_.wide_padding && left + frames_.padding.size() >= frames_.wide_padding.size();
    const buf::FrameRef& frame = wide ? frames_.wide_padding : frames_.padding;
    if (queue.push_control(frame) != EnqueueStatus::ok) break;
    queued += frame.size();
    left -= std::min(left, std::max<std::size_t>(frame.size(), 1));
  }
  if (queued == 0) return;
  backlog_->padded(queued, now);
  if (settings_.report != nullptr) settings_.report->padded(queued);
}

void LatencyGate::note_write(Clock::time_point now, std::size_t bytes) {
  if (now >= write_period_end_) {
    previous_write_ = now - write_period_end_ < PeerBacklog::kWindowMemory ? current_write_ : 0;
    current_write_ = 0;
    write_period_end_ = now + PeerBacklog::kWindowMemory;
  }
  current_write_ = std::max(current_write_, bytes);
}

void LatencyGate::add_mark(Clock::time_point now) {
  if (marks_count_ > 0) {
    Mark& newest = marks_[(marks_head_ + marks_count_ - 1) % kMarks];
    // Same tick, or no room: the newest mark covers these bytes too, which
    // makes them look older than they are, never younger.
    if (newest.time == now || marks_count_ == kMarks) {
      newest.end = written_;
      return;
    }
  }
  marks_[(marks_head_ + marks_count_) % kMarks] = {written_, now};
  ++marks_count_;
}

bool LatencyGate::oldest_unconsumed(Clock::time_point& written) {
  while (marks_count_ > 0 && marks_[marks_head_].end <= consumed_) {
    marks_head_ = (marks_head_ + 1) % kMarks;
    --marks_count_;
  }
  if (marks_count_ == 0) return false;
  written = marks_[marks_head_].time;
  return true;
}

// Bytes are read in order: unread bytes up to the number of control bytes
// written after the last data (probes, heartbeats) mean every data byte was
// read. A reader that leaves the last probe unread is not behind.
std::size_t LatencyGate::outstanding_data() const {
  const std::size_t unread = unconsumed_ + unsampled_;
  return unread > control_since_data_ ? unread - control_since_data_ : 0;
}

}  // namespace sluice::conn
