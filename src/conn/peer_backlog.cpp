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
  if (read) {
    // The first window offered after padding is what the narrowed buffer
    // offers, less what the reader left of the frames since.
    if (padded_ > 0) largest_ = facts.peer_window;
    padded_ = 0;
  }
  padding_ = 0;
  // Data on its way (more than a probe unacknowledged or unsent) is not
  // rest either: a reader whose buffer is full has it waiting.
  if (edge_moved || data_acked || facts.send_queue > kProbeBytes) {
    still_since_ = now;
  } else if (now - still_since_ >= kRest && largest_ > facts.peer_window && facts.peer_window > 0) {
    // Two steps at least, or the window may not show it; none until the
    // budget holds the least a padding may be, and then no more than it
    // holds.
    const std::size_t wanted = std::min<std::size_t>(std::max(kFirstPadding << padded_, 2 * unit), facts.peer_window);
    const std::size_t budget = padding_budget(now);
    if (budget >= std::min(wanted, std::max(kFirstPadding, 2 * unit))) {
      padding_ = std::min(wanted, budget);
      padded_ = std::min(padded_ + 1, kMostPaddingDoublings);
      still_since_ = now;
    }
  }
  largest_ = std::max(largest_, facts.peer_window);
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
}

}  // namespace sluice::conn
