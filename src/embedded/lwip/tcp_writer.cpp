// The room lwIP has is asked again before every tcp_write, from its own
// counters (send buffer, queue length, unsent bytes), so a flush never asks
// more of lwIP than it can take and tcp_write's ERR_MEM stays the rare case
// of lwIP's heap running out, after which the flush stops and is retried on
// the next tcp_sent or poll.
#include "embedded/lwip/tcp_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sluice::embedded::lwip {

namespace {

constexpr std::size_t kMaxWrite = 0xFFFF;  // tcp_write's length is a u16_t
// A write of n bytes takes at most n / mss pbufs, one more for a partial
// segment and one for a pbuf chained onto the last unsent segment.
constexpr std::size_t kSlotsPerWrite = 2;

}  // namespace

TcpWriter::TcpWriter(tcp_pcb* pcb, const TcpWriterLimits& limits, AckHold* hold, std::span<char> scratch)
    : pcb_(pcb), limits_(limits), hold_(hold), scratch_(limits.copy ? scratch : std::span<char>()) {}

void TcpWriter::begin_batch(std::size_t control_bytes) { control_left_ = control_bytes; }

// What lwIP can take for the next bytes of the batch. Bytes gathered in the
// scratch buffer are not in lwIP yet but are spoken for.
std::size_t TcpWriter::room() const {
  const bool control = control_left_ > 0;
  const std::size_t buffer_reserve = control ? 0 : limits_.control_reserve_bytes;
  const std::size_t send_buffer = tcp_sndbuf(pcb_);
  if (send_buffer <= scratch_used_ + buffer_reserve) return 0;
  std::size_t room = send_buffer - scratch_used_ - buffer_reserve;

  // lwIP cuts writes into segments of at most half the largest window the
  // peer offered, so that is what one queue entry holds.
  const std::size_t segment = std::max<std::size_t>(std::min<std::size_t>(tcp_mss(pcb_), pcb_->snd_wnd_max / 2), 1);
  const std::size_t slots_reserve = control ? 0 : limits_.control_reserve_slots;
  const std::size_t scratch_slots = scratch_used_ > 0 ? scratch_used_ / segment + kSlotsPerWrite : 0;
  const std::size_t used = tcp_sndqueuelen(pcb_) + scratch_slots + slots_reserve + kSlotsPerWrite;
  if (used >= TCP_SND_QUEUELEN) return 0;
  room = std::min(room, (TCP_SND_QUEUELEN - used) * segment);

  if (control) return std::min(room, control_left_);
  const std::size_t unsent = static_cast<std::uint32_t>(pcb_->snd_lbb - pcb_->snd_nxt) + scratch_used_;
  return unsent >= limits_.max_unsent ? 0 : std::min(room, limits_.max_unsent - unsent);
}

long TcpWriter::writev(const struct iovec* iov, int count) {
  if (pcb_ == nullptr) return -ENOTCONN;
  committed_ = 0;
  // Without copy, each slice may start a frame the hold must keep.
  const int slices = limits_.copy ? count : std::min<int>(count, static_cast<int>(hold_->free_slots()));
  for (int i = 0; i < slices; ++i) {
    const std::size_t length = iov[i].iov_len;
    if (take_slice(static_cast<const char*>(iov[i].iov_base), length) < length) break;
  }
  if (!commit_scratch()) scratch_used_ = 0;
  return committed_ > 0 ? static_cast<long>(committed_) : -EAGAIN;
}

// Takes as much of one slice as lwIP has room for; returns how much.
std::size_t TcpWriter::take_slice(const char* bytes, std::size_t length) {
  std::size_t taken = 0;
  while (taken < length) {
    const std::size_t n = std::min({length - taken, room(), kMaxWrite});
    if (n == 0 || !put(bytes + taken, n)) break;
    taken += n;
    control_left_ -= std::min(control_left_, n);
  }
  return taken;
}

bool TcpWriter::put(const char* bytes, std::size_t n) {
  if (n > scratch_.size()) return commit_scratch() && write(bytes, n);
  if (scratch_used_ + n > scratch_.size() && !commit_scratch()) return false;
  std::memcpy(scratch_.data() + scratch_used_, bytes, n);
  scratch_used_ += n;
  return true;
}

bool TcpWriter::commit_scratch() {
  if (scratch_used_ == 0) return true;
  const bool ok = write(scratch_.data(), scratch_used_);
  scratch_used_ = 0;
  return ok;
}

bool TcpWriter::write(const char* bytes, std::size_t n) {
  // MORE: more bytes follow, so lwIP fills the segment rather than pushing
  // it; the caller's tcp_output at the end of the batch sends what is queued.
  const u8_t flags = TCP_WRITE_FLAG_MORE | (limits_.copy ? TCP_WRITE_FLAG_COPY : 0);
  if (tcp_write(pcb_, bytes, static_cast<u16_t>(n), flags) != ERR_OK) {
    ++stats_.refused;
    return false;
  }
  ++stats_.tcp_writes;
  stats_.bytes += n;
  committed_ += n;
  return true;
}

void TcpWriter::frame_started(const buf::FrameRef& frame) {
  if (!limits_.copy) hold_->started(frame);
}

}  // namespace sluice::embedded::lwip
