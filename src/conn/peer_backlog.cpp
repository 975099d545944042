#include "conn/peer_backlog.hpp"

#ifdef __linux__
#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace sluice::conn {

namespace {
// TCP's largest window scale (RFC 7323); a larger figure is not a scale.
constexpr unsigned kMaxWindowScale = 14;
// What is earned is counted for this long at most, so that it cannot
// overflow: at a byte a second, a burst's worth.
constexpr std::int64_t kBudgetFullAfterUs = std::int64_t{PeerBacklog::kPaddingBurst} * 1'000'000;
}  // namespace

#ifdef __linux__

std::optional<Backlog> PeerBacklog::sample(Clock::time_point now) {
  if (fd_ < 0) return std::nullopt;
  tcp_info info{};
  socklen_t length = sizeof info;
  if (::getsockopt(fd_, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  // An older kernel fills a shorter struct, without the peer's window.
  if (length < offsetof(tcp_info, tcpi_snd_wnd) + sizeof info.tcpi_snd_wnd) return std::nullopt;
  KernelFacts facts{.send_queue = 0, .peer_window = info.tcpi_snd_wnd, .unsent = info.tcpi_notsent_bytes};
  // The path's rate and round trip come before tcpi_snd_wnd in the struct:
  // a kernel that tells the window tells them too.
  facts.delivery_rate = info.tcpi_delivery_rate;
  facts.min_rtt_us = info.tcpi_min_rtt;
  facts.rate_app_limited = info.tcpi_delivery_rate_app_limited != 0;
  facts.window_scale = info.tcpi_snd_wscale;
  facts.acked = info.tcpi_bytes_acked;
  // Nothing in flight and nothing unsent means SIOCOUTQ would answer 0:
  // the common look at a held reader costs one system call, not two.
  if (info.tcpi_unacked != 0 || info.tcpi_notsent_bytes != 0) {
    int queued = 0;
    if (::ioctl(fd_, SIOCOUTQ, &queued) != 0) return std::nullopt;
    facts.send_queue = queued > 0 ? static_cast<std::size_t>(queued) : 0;
  }
  return estimate(facts, now);
}

#else

std::optional<Backlog> PeerBacklog::sample(Clock::time_point) { return std::nullopt; }

#endif

Backlog PeerBacklog::estimate(const KernelFacts& facts, Clock::time_point now) {
  remember_window(facts, now);
  const std::size_t unacknowledged = facts.send_queue - std::min(facts.unsent, facts.send_queue);
  return {.in_flight = facts.send_queue,
          .unread = largest_window() - facts.peer_window,
          .arriving = round_trip_credit({.unacknowledged = unacknowledged,
                                         .delivery_rate = facts.delivery_rate,
                                         .min_rtt_us = facts.min_rtt_us,
                                         .rate_app_limited = facts.rate_app_limited}),
          .window_unit = window_unit(facts),
          .round_trip = std::chrono::microseconds(facts.min_rtt_us),
          .padding = padding_,
          .room = facts.peer_window - std::min<std::size_t>(facts.send_queue, facts.peer_window)};
}

std::size_t PeerBacklog::window_unit(const KernelFacts& facts) {
  return std::size_t{1} << std::min<unsigned>(facts.window_scale, kMaxWindowScale);
}

void PeerBacklog::remember_window(const KernelFacts& facts, Clock::time_point now) {
  if (now - last_sample_ >= kWindowMemory) {  // at the first look, 0 already
    largest_ = 0;
    padded_ = 0;
  }
  const Clock::time_point looked_before = last_sample_;
  last_sample_ = now;
  // Between two looks, a probe acknowledged moves the window down, or its
  // edge up when the reader's kernel offers the same window after reading
  // it: neither is data, nor data read. A buffer also grows as data
  // arrives (never for a probe: Linux grows it for segments of 128 bytes
  // or more), moving the edge of a reader that stopped: an edge that moved
  // while nothing but probes arrived shows a read. So does, once padding
  // was asked for, data that left the window as it was (the edge moved by
  // what was acknowledged, to a probe's bytes): the reader read it, its
  // kernel's ACK waiting for the read. A buffer that grew by just what
  // came looks the same; growth falls short of it or passes it, except by
  // the window's rounding, so data of less than two steps shows nothing.
  const std::uint64_t edge = facts.acked + facts.peer_window;
  const std::uint64_t edge_moved_by = edge - edge_;
  const std::uint64_t acked_by = facts.acked - acked_;
  const std::size_t unit = window_unit(facts);
  // An edge never moves back on Linux; one that did (a stack that takes
  // back window) moved nowhere a read would take it.
  const bool edge_moved = edge > edge_ && edge_moved_by > kProbeBytes;
  const bool data_acked = acked_by > kProbeBytes;
  const bool window_kept =
      acked_by >= 2 * unit && edge_moved_by + kProbeBytes >= acked_by && edge_moved_by <= acked_by + kProbeBytes;
  const bool read = edge_moved && (!data_acked || (padded_ > 0 && window_kept));
  edge_ = edge;
  acked_ = facts.acked;
  earn_padding_credit(acked_by, unit, now);
  if (read) {
    // The first window offered after padding is what the narrowed buffer
    // offers, less what the reader left of the frames since. How long that
    // took was our rest and padding, not the reader's wait.
    if (padded_ > 0 && facts.peer_window < largest_) unread_since_.reset();
    if (padded_ > 0) largest_ = facts.peer_window;
    padded_ = 0;
  } else if (facts.peer_window >= largest_) {
    // A window back at its largest shows nothing unread, whether the
    // reader read or its buffer grew: nothing is left for padding to
    // show, and the next stand-still starts again from the least padding.
    padded_ = 0;
  }
  note_wait(facts.peer_window < largest_, now, now - looked_before <= kTimedLookGap);
  padding_ = 0;
  // Data on its way (more than a probe unacknowledged or unsent) is not
  // rest either: a reader whose buffer is full has it waiting.
  if (edge_moved || data_acked || facts.send_queue > kProbeBytes) {
    still_since_ = now;
  } else if (now - still_since_ >= rest_ && largest_ > facts.peer_window && facts.peer_window > 0) {
    // Two steps at least, or the window may not show it; none until the
    // budget holds the least a padding may be, and then no more than it
    // holds.
    const std::size_t wanted = std::min<std::size_t>(std::max(kFirstPadding << padded_, 2 * unit), facts.peer_window);
    const std::size_t budget = std::min(padding_budget(now), padding_credit());
    if (budget >= std::min(wanted, least_padding(unit))) {
      padding_ = std::min(wanted, budget);
      padded_ = std::min(padded_ + 1, kMostPaddingDoublings);
      still_since_ = now;
    }
  }
  largest_ = std::max(largest_, facts.peer_window);
}

// A reader that reads now and then waits about as long between its reads
// each time: its edge standing still for less than twice that is no sign
// that its buffer narrowed, and padding sent then would be read in place
// of frames. A wait is learnt only from a look that times it, one close
// after the look before (a held reader is looked at every few
// milliseconds; one we sent nothing for may have read long before we
// looked again), and never from a read that padding showed in a narrowed
// buffer (that time was ours). A wait that ended as padding arrived is
// learnt: a reader that reads now and then mostly reads just so, its
// window coming back as the padding's ACK goes, and kept from learning
// there it was padded between all its reads (a buffer that grew as
// padding came, looking the same, is padded later, not more). One quick
// read (frames that came just before it) takes a quarter off the rest,
// not all of it.
void PeerBacklog::note_wait(bool unread, Clock::time_point now, bool timed) {
  if (unread) {
    if (!unread_since_) unread_since_ = now;
    return;
  }
  if (unread_since_ && timed) {
    const Clock::duration waited = now - *unread_since_;
    rest_ = std::clamp<Clock::duration>(std::max(2 * waited, rest_ * 3 / 4), kRest, kLongestRest);
  }
  unread_since_.reset();
}

std::size_t PeerBacklog::padding_budget(Clock::time_point now) const {
  return static_cast<std::size_t>(std::max<std::int64_t>(budget_at(now), 0));
}

// What was earned since pays what is owed first.
std::int64_t PeerBacklog::budget_at(Clock::time_point now) const {
  const std::int64_t elapsed_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now - padding_budget_at_).count();
  const std::int64_t earned = std::clamp<std::int64_t>(elapsed_us, 0, kBudgetFullAfterUs) *
                              static_cast<std::int64_t>(padding_per_second_) / 1'000'000;
  return std::min(padding_budget_ + earned, static_cast<std::int64_t>(kPaddingBurst));
}

void PeerBacklog::padded(std::size_t bytes, Clock::time_point now) {
  padding_budget_ = budget_at(now) - static_cast<std::int64_t>(bytes);
  padding_budget_at_ = std::max(now, padding_budget_at_);
  padding_credit_ -= static_cast<std::int64_t>(bytes) * kMicro;
  padding_unacked_ += bytes;
}

// Padding acknowledged earns nothing: what is acknowledged counts as
// padding first, as far as padding is on its way (TCP acknowledges the
// frames queued before it first, so the credit errs low). The credit is
// kept in millionths of a byte and the clock read in nanoseconds, so that
// looks microseconds apart earn what a second earns, not nothing each. The
// clock earns from the first look on, and data from the bytes
// acknowledged after it.
void PeerBacklog::earn_padding_credit(std::uint64_t acked_by, std::size_t unit, Clock::time_point now) {
  const std::uint64_t padding = std::min(acked_by, padding_unacked_);
  padding_unacked_ -= padding;
  const std::uint64_t data = credit_at_ ? acked_by - padding : 0;
  const Clock::time_point since = credit_at_.value_or(now);
  const std::int64_t elapsed_ns = std::clamp<std::int64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - since).count(), 0, kBudgetFullAfterUs * 1000);
  credit_at_ = std::max(now, since);
  // The least padding a window of such steps shows, once every longest rest.
  const std::size_t per_second =
      std::max(kPaddingCreditPerSecond, least_padding(unit) * 1000 / static_cast<std::size_t>(kLongestRest.count()));
  const std::int64_t earned = static_cast<std::int64_t>(data) * (kMicro / kDataPerPaddingByte) +
                              elapsed_ns * static_cast<std::int64_t>(per_second) / 1000;
  padding_credit_ = std::min(padding_credit_ + earned, static_cast<std::int64_t>(kPaddingBurst) * kMicro);
}

}  // namespace sluice::conn
