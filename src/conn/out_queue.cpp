// Flushing is gather, write, consume. gather() lays the queue out as iovecs
// in the order the bytes must reach the wire: the rest of the frame in
// flight, the control lane, the data lane as far as the flush's allowance
// goes. consume() walks the same order
// by the number of bytes the writer took, releasing every frame it passes
// and leaving the frame it stops inside in flight. Only a frame with bytes
// on the wire is in flight, so a frame that has not started can still be
// overtaken by control frames or dropped.
#include "conn/out_queue.hpp"

#include <algorithm>
#include <cerrno>
#include <utility>

namespace sluice::conn {

namespace {

constexpr int kMaxIov = kMaxGather;
// Ring slots a new connection starts with; each ring doubles from here. A
// drain hands a subscriber every event its loop had not yet delivered in one
// go, so a subscriber that keeps up can be handed dozens at once: 64 data
// slots (2 KiB) mean it never grows its ring, whatever the loops' timing.
constexpr std::size_t kInitialControlSlots = 16;
constexpr std::size_t kInitialDataSlots = 64;

}  // namespace

// The iovecs of one writev.
struct OutQueue::Batch {
  struct iovec* iov;
  int count = 0;
  std::size_t bytes = 0;
  DataAllowance rest;  // what the allowance leaves for the data frames after this batch

  // Adds one iovec per non-empty block from `block` on, the first starting
  // `offset` bytes in. Returns false when the iovecs ran out first.
  bool add(const buf::Block* block, std::size_t offset) {
    for (; block != nullptr; block = block->next, offset = 0) {
      if (block->used == offset) continue;
      if (count == kMaxIov) return false;
      const std::size_t length = block->used - offset;
      // writev only reads through iov_base; iovec just lacks a const pointer.
      iov[count++] = iovec{const_cast<char*>(block->data()) + offset, length};
      bytes += length;
    }
    return true;
  }
};

OutQueue::OutQueue(const OutQueueLimits& limits)
    : limits_(limits), control_(kInitialControlSlots, limits.max_control_frames),
      data_(kInitialDataSlots, limits.max_frames) {}

OutQueue::OutQueue(const OutQueueLimits& limits, const OutQueueMemory& memory)
    : limits_(limits), control_(memory.control), data_(memory.data) {
  limits_.max_control_frames = std::min(limits_.max_control_frames, memory.control.size());
  limits_.max_frames = std::min(limits_.max_frames, memory.data.size());
}

// A frame over the budget on its own is let in whatever is queued, one at
// a time, and is not counted against the budget: else the events next to
// it, however small, would find the budget spent while a reader with room
// was still taking the large one, and a fifo reader would be cut off for
// one large event (one POST of line feeds is seven times its size as SSE).
// The queue holds at most that frame and a budget besides.
bool OutQueue::oversized(const buf::FrameRef& frame) const { return frame.size() > limits_.max_bytes; }

bool OutQueue::holds_oversized() const {
  return oversized_pending_bytes_ > 0 || (current_is(true) && oversized(current_));
}

std::size_t OutQueue::budgeted_bytes() const {
  const std::size_t in_flight = current_is(true) && oversized(current_) ? current_left_ : 0;
  return data_bytes_ - oversized_pending_bytes_ - in_flight;
}

EnqueueStatus OutQueue::push_data(buf::FrameRef frame, FrameLabel label) {
  const std::size_t frames = data_frames();
  const bool room = oversized(frame) ? !holds_oversized() : budgeted_bytes() + frame.size() <= limits_.max_bytes;
  if (frames > 0 && (frames >= limits_.max_frames || !room)) return EnqueueStatus::over_budget;
  if (oversized(frame)) oversized_pending_bytes_ += frame.size();
  data_bytes_ += frame.size();
  data_.push({std::move(frame), label});
  return EnqueueStatus::ok;
}

void OutQueue::push_last(buf::FrameRef frame) {
  if (data_.size() >= data_.max()) (void)remove_pending(data_.size() - 1);
  if (oversized(frame)) oversized_pending_bytes_ += frame.size();
  data_bytes_ += frame.size();
  data_.push({std::move(frame), {}});
}

EnqueueStatus OutQueue::push_control(buf::FrameRef frame) {
  if (control_frames() >= limits_.max_control_frames) return EnqueueStatus::full;
  control_.push({std::move(frame), {}});
  return EnqueueStatus::ok;
}

bool OutQueue::append_control(std::string_view bytes) {
  return !control_.empty() && control_.at(control_.size() - 1).frame.append_unshared(bytes);
}

FlushResult OutQueue::flush(Writer& writer, DataAllowance allowance) {
  const FlushResult result = write_out(writer, allowance);
  backed_up_ = result.status == FlushStatus::held ? !allowance.awaits_answer : result.status != FlushStatus::drained;
  note_backlog();
  return result;
}

FlushResult OutQueue::write_out(Writer& writer, DataAllowance allowance) {
  FlushResult result{FlushStatus::drained};
  struct iovec iov[kMaxIov];
  while (!empty()) {
    const Batch batch = gather(iov, allowance);
    allowance = batch.rest;
    if (batch.bytes == 0) {
      const std::size_t completed = consume(0, writer);
      // Nothing to write and no empty frame to complete: what is left
      // waits for a larger allowance.
      if (completed == 0) {
        result.status = FlushStatus::held;
        return result;
      }
      result.frames_completed += completed;
      continue;
    }
    const long wrote = writer.writev(iov, batch.count);
    ++result.calls;
    if (wrote < 0 && wrote != -EAGAIN) {
      result.status = FlushStatus::error;
      result.error = static_cast<int>(-wrote);
      return result;
    }
    const std::size_t taken = wrote < 0 ? 0 : std::min(static_cast<std::size_t>(wrote), batch.bytes);
    result.bytes += taken;
    result.frames_completed += consume(taken, writer);
    // A short write means the socket buffer is full: asking again now would
    // only cost a system call that returns -EAGAIN.
    if (taken < batch.bytes) {
      result.status = FlushStatus::blocked;
      return result;
    }
  }
  return result;
}

std::optional<FrameLabel> OutQueue::drop_oldest_data() {
  if (data_.empty()) return std::nullopt;
  return remove_pending(0);
}

FrameLabel OutQueue::remove_pending(std::size_t i) {
  const QueuedFrame removed = i == 0 ? data_.pop() : data_.remove(i);
  data_bytes_ -= removed.frame.size();
  if (oversized(removed.frame)) oversized_pending_bytes_ -= removed.frame.size();
  note_backlog();
  return removed.label;
}

FrameLabel OutQueue::replace_pending(std::size_t i, buf::FrameRef frame, FrameLabel label) {
  QueuedFrame& entry = data_.at(i);
  const FrameLabel replaced = entry.label;
  data_bytes_ = data_bytes_ - entry.frame.size() + frame.size();
  if (oversized(entry.frame)) oversized_pending_bytes_ -= entry.frame.size();
  if (oversized(frame)) oversized_pending_bytes_ += frame.size();
  entry = {std::move(frame), label};
  note_backlog();
  return replaced;
}

std::size_t OutQueue::drop_pending_data() {
  std::size_t bytes = 0;
  while (!data_.empty()) {
    bytes += data_.at(0).frame.size();
    (void)remove_pending(0);
  }
  return bytes;
}

// The mark is set where a backed-up stretch begins and only falls while it
// lasts, so coming down means draining for real: a reader that varies what
// it takes while its publisher refills the queue dips below its last
// look's low now and then, but not a further 16 KiB below its lowest, time
// after time. A burst being drained comes down at every look, and a reader
// that keeps some backlog between bursts is caught up while it stays
// under caught_up_below().
std::uint32_t OutQueue::look_behind() {
  const bool read = frame_done_since_look_ || bytes_since_look_ >= kLookProgressBytes;
  const bool caught_up = backlog_low_ < caught_up_below();
  const bool came_down =
      backlog_mark_ != UINT32_MAX && std::uint64_t{backlog_low_} + kLookProgressBytes <= backlog_mark_;
  if (caught_up) {
    backlog_mark_ = UINT32_MAX;
  } else if (came_down) {
    backlog_mark_ = backlog_low_;
  }
  if (data_frames() == 0 || (read && (caught_up || came_down))) {
    looks_behind_ = 0;
  } else if (looks_behind_ < UINT32_MAX) {
    ++looks_behind_;
  }
  frame_done_since_look_ = false;
  bytes_since_look_ = 0;
  backlog_low_ = backlog();
  if (backlog_mark_ == UINT32_MAX && backlog_low_ >= caught_up_below()) backlog_mark_ = backlog_low_;
  return looks_behind_;
}

void OutQueue::clear() {
  control_.clear();
  data_.clear();
  finish_current();
  data_bytes_ = 0;
  oversized_pending_bytes_ = 0;
  backed_up_ = false;
  backlog_low_ = 0;
  backlog_mark_ = UINT32_MAX;
}

void OutQueue::give_back_slots() {
  if (!empty()) return;
  control_.give_back();
  data_.give_back();
}

bool OutQueue::empty() const { return !in_flight_ && control_.empty() && data_.empty(); }

std::size_t OutQueue::data_frames() const { return data_.size() + (current_is(true) ? 1 : 0); }

std::int64_t OutQueue::oldest_data_published_ns() const {
  if (current_is(true)) return current_.published_ns();
  return data_.empty() ? 0 : data_.at(0).frame.published_ns();
}

std::size_t OutQueue::control_frames() const { return control_.size() + (current_is(false) ? 1 : 0); }

std::size_t OutQueue::control_bytes_ahead() const {
  if (control_.empty() && !current_is(false)) return 0;
  std::size_t bytes = in_flight_ ? current_left_ : 0;
  for (std::size_t i = 0; i < control_.size(); ++i) bytes += control_.at(i).frame.size();
  return bytes;
}

OutQueue::Batch OutQueue::gather(struct iovec* iov, DataAllowance allowance) const {
  Batch batch{iov};
  batch.rest = allowance;
  if (in_flight_ && !batch.add(current_block_, current_offset_)) return batch;
  for (std::size_t i = 0; i < control_.size(); ++i) {
    if (!batch.add(control_.at(i).frame.first_block(), 0)) return batch;
  }
  for (std::size_t i = 0; i < data_.size(); ++i) {
    const std::size_t size = data_.at(i).frame.size();
    if (size > batch.rest.bytes && !batch.rest.one_frame) return batch;
    const int before = batch.count;
    const bool whole = batch.add(data_.at(i).frame.first_block(), 0);
    // Charged whole once it has bytes in this batch: cut short by the
    // iovecs, it goes on in flight and is not charged again.
    if (whole || batch.count > before) {
      batch.rest.bytes = size > batch.rest.bytes ? 0 : batch.rest.bytes - size;
      batch.rest.one_frame = false;
    }
    if (!whole) return batch;
  }
  return batch;
}

std::size_t OutQueue::consume(std::size_t written, Writer& writer) {
  std::size_t completed = 0;
  while (in_flight_ || start_next(written, writer)) {
    written = advance(written);
    if (current_left_ > 0) break;
    if (current_is_data_) frame_done_since_look_ = true;
    finish_current();
    ++completed;
  }
  return completed;
}

bool OutQueue::start_next(std::size_t written, Writer& writer) {
  detail::FrameRing& lane = control_.empty() ? data_ : control_;
  // A frame goes in flight only with its first byte written (or when it has
  // none): until then it may still be overtaken or dropped.
  if (lane.empty() || (written == 0 && lane.at(0).frame.size() != 0)) return false;
  current_is_data_ = &lane == &data_;
  current_ = lane.pop().frame;
  if (current_is_data_ && oversized(current_)) oversized_pending_bytes_ -= current_.size();
  current_block_ = current_.first_block();
  current_offset_ = 0;
  current_left_ = current_.size();
  in_flight_ = true;
  writer.frame_started(current_);
  return true;
}

// Moves the frame in flight on by up to `written` bytes; returns the bytes
// left over for the frames behind it.
std::size_t OutQueue::advance(std::size_t written) {
  std::size_t take = std::min(written, current_left_);
  current_left_ -= take;
  if (current_is_data_) {
    data_bytes_ -= take;
    const std::size_t since = std::min<std::size_t>(bytes_since_look_ + take, kLookProgressBytes);
    bytes_since_look_ = static_cast<std::uint16_t>(since);
  }
  const std::size_t rest = written - take;
  while (take > 0) {
    const std::size_t available = current_block_->used - current_offset_;
    if (take < available) {
      current_offset_ += take;
      break;
    }
    take -= available;
    current_block_ = current_block_->next;
    current_offset_ = 0;
  }
  return rest;
}

void OutQueue::finish_current() {
  current_.reset();
  in_flight_ = false;
  current_block_ = nullptr;
  current_offset_ = 0;
  current_left_ = 0;
}

}  // namespace sluice::conn
