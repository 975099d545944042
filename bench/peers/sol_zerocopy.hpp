// Owns: the speed-of-light server's MSG_ZEROCOPY sends (--zerocopy): a
// subscriber socket opted in with SO_ZEROCOPY, and the kernel's answers
// reaped from its error queue.
//
// A send with MSG_ZEROCOPY pins the batch's pages instead of copying them
// into the socket; the kernel tells when it is done with them by queuing
// a notification (SO_EE_ORIGIN_ZEROCOPY, a range of the socket's send
// counter) on the socket's error queue, which makes epoll report EPOLLERR.
// The batch is never written again, so nothing waits for a notification
// before the next round; they are only counted. When the kernel had to
// copy after all (over loopback it does: the receiver in this same kernel
// gets its own copy), the notification carries
// SO_EE_CODE_ZEROCOPY_COPIED, and the tally says how many sends that was.
#pragma once

#include <cstdint>

namespace sluice::peers {

struct SolZerocopyTally {
  std::uint64_t sends = 0;          // sends made with MSG_ZEROCOPY that took bytes
  std::uint64_t notifications = 0;  // error-queue messages read
  std::uint64_t completed = 0;      // sends the kernel said it is done with
  std::uint64_t copied = 0;         // of those, sends it copied anyway
};

// Opts `fd` in (SO_ZEROCOPY); false when the kernel refuses.
bool enable_zerocopy(int fd);

// Reads `fd`'s error queue until it is empty, counting into `tally`.
// False when the socket holds an error of its own (it failed).
bool reap_zerocopy(int fd, SolZerocopyTally& tally);

}  // namespace sluice::peers
