#include "conn/peer_backlog.hpp"

#ifdef __linux__
#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#endif

#include <algorithm>
#include <cstddef>

namespace sluice::conn {

namespace {
// TCP's largest window scale (RFC 7323); a larger figure is not a scale.
constexpr unsigned kMaxWindowScale = 14;
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
  note_rest(facts, now);
  remember_window(facts.peer_window, now);
  const std::size_t unacknowledged = facts.send_queue - std::min(facts.unsent, facts.send_queue);
  return {.in_flight = facts.send_queue,
          .unread = largest_window() - facts.peer_window,
          .arriving = round_trip_credit({.unacknowledged = unacknowledged,
                                         .delivery_rate = facts.delivery_rate,
                                         .min_rtt_us = facts.min_rtt_us,
                                         .rate_app_limited = facts.rate_app_limited}),
          .window_unit = std::size_t{1} << std::min<unsigned>(facts.window_scale, kMaxWindowScale),
          .round_trip = std::chrono::microseconds(facts.min_rtt_us)};
}

void PeerBacklog::note_rest(const KernelFacts& facts, Clock::time_point now) {
  const bool at_rest = facts.send_queue == 0;
  if (!at_rest || !at_rest_ || facts.peer_window != rest_window_) {
    at_rest_ = at_rest;
    rest_window_ = facts.peer_window;
    rest_since_ = now;
    return;
  }
  if (now - rest_since_ >= kRest) rested_ = true;
}

void PeerBacklog::remember_window(std::uint32_t window, Clock::time_point now) {
  if (now >= period_end_) {
    if (now - period_end_ >= kWindowMemory) {
      previous_max_ = 0;  // a whole period with no sample at all forgets both
    } else if (current_max_ >= previous_max_ || rested_) {
      previous_max_ = current_max_;
    }  // else kept: the reader never rested, so its largest window may still be there (above)
    current_max_ = 0;
    rested_ = false;
    period_end_ = now + kWindowMemory;
  }
  if (window > current_max_) current_max_ = window;
}

}  // namespace sluice::conn
