// Owns: ArrivalStampsOn, which makes sure the kernel stamps arriving
// packets while it lives. The first socket on a host to ask for receive
// timestamps only schedules the kernel to start stamping; packets that
// arrive before it has are read without a stamp. A test that checks a
// stamp holds one of these, which keeps a stamped socket open and has read
// a stamped byte on it.
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>

#include "io/arrival_stamp.hpp"
#include "loopback_pair.hpp"

namespace sluice::test {

class ArrivalStampsOn {
 public:
  ArrivalStampsOn() : pair_(0) {
    if (!io::stamp_arrivals(pair_.sender)) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!ready_ && std::chrono::steady_clock::now() < deadline) {
      if (::send(pair_.reader, "w", 1, 0) != 1) return;
      pollfd readable{pair_.sender, POLLIN, 0};
      if (::poll(&readable, 1, 1000) != 1) continue;
      char byte;
      std::int64_t arrival = 0;
      ready_ = io::recv_stamped(pair_.sender, &byte, 1, arrival) == 1 && arrival != 0;
    }
  }

  // The kernel stamps packets now.
  [[nodiscard]] bool ready() const { return ready_; }

 private:
  LoopbackPair pair_;
  bool ready_ = false;
};

}  // namespace sluice::test
