// Owns: SolSubscribers, the speed-of-light server's subscribers and the
// only two ways it sends to them.
//
//  - send_round(): the fan-out. Every writable subscriber gets the one
//    prebuilt batch of its framing in one send(), continuing from where a
//    short send left it, so its stream is that batch over and over without
//    a byte missing. A subscriber whose socket is full waits for EPOLLOUT
//    (edge-triggered) and is skipped until then; nothing is queued, copied
//    or restamped, and no event is dropped.
//  - broadcast(): the relay. One published message, framed once, goes to
//    every subscriber in one send() each; what a full socket does not take
//    is kept for that subscriber alone (the only copy, and only for the
//    lagging, at most kMaxOwed bytes, past which it is cut off) and sent
//    first when its socket drains.
// A subscriber's stream head (the SSE response head or the 101) and a
// burst go out the same way as a relay's leftovers. Over TLS each send()
// is an SSL_write of the same bytes on the subscriber's connection
// (sol_tls.hpp), which the caller owns.
//
// A fan-out round's sends can go another way (use_round_path()): all of
// them in one io_uring submission (sol_uring.hpp), and/or each with
// MSG_ZEROCOPY (sol_zerocopy.hpp). Their answers are taken exactly as
// send()'s: a short send continues next round, a full socket (or, with
// MSG_ZEROCOPY, no room left for the kernel's notifications) waits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sol_send.hpp"

typedef struct ssl_st SSL;

namespace sluice::peers {

class SolUring;

class SolSubscribers {
 public:
  static constexpr std::size_t kMaxOwed = std::size_t{64} << 20;

  // Adds `fd` with `first` (its stream head, perhaps a burst) to send
  // first; written through `tls` when it is set. False when it failed at
  // once (then it was not added).
  bool add(int fd, bool websocket, std::string first, SSL* tls = nullptr);
  // Forgets `fd` (the caller closes it). No-op for an unknown fd.
  void remove(int fd);
  [[nodiscard]] bool contains(int fd) const;

  // The socket of `fd` drained (EPOLLOUT): sends what it was owed. False
  // when the connection failed.
  bool on_writable(int fd);

  // One fan-out round: `ws` to WebSocket subscribers, `sse` to the rest.
  // The fds whose send failed are appended to `failed`.
  void send_round(std::string_view ws, std::string_view sse, std::vector<int>& failed);
  // One relayed message, already framed both ways.
  void broadcast(std::string_view ws, std::string_view sse, std::vector<int>& failed);

  // Rounds are sent through `uring` when it is set (not owned), and with
  // MSG_ZEROCOPY when `zerocopy` (clear text only).
  void use_round_path(SolUring* uring, bool zerocopy);
  // Round sends that took bytes, since the start.
  [[nodiscard]] std::uint64_t round_sends() const { return round_sends_; }

  [[nodiscard]] std::size_t writable() const { return writable_; }
  [[nodiscard]] std::size_t size() const { return list_.size(); }

 private:
  struct Subscriber {
    int fd = -1;
    SSL* tls = nullptr;  // not owned
    bool websocket = false;
    bool writable = true;
    std::size_t offset = 0;  // fan-out: where in the batch the next send starts
    std::string owed;        // head, burst or relayed bytes a full socket did not take
  };

  // One non-blocking send of `bytes`: the bytes taken (0 when the socket
  // is full) or -1 when the connection failed.
  static long send_some(const Subscriber& s, std::string_view bytes, int flags = 0);
  // send()'s answer `n` (bytes, 0 for a full socket, -1 failed) to a
  // round's send of `batch` to `s`.
  void take_round_result(Subscriber& s, std::string_view batch, long n, std::vector<int>& failed);
  void send_round_batched(std::string_view ws, std::string_view sse, std::vector<int>& failed);
  bool flush_owed(Subscriber& s);
  void set_writable(Subscriber& s, bool writable);

  std::vector<Subscriber> list_;
  std::vector<std::size_t> slot_of_fd_;  // fd -> index in list_ + 1; 0: not a subscriber
  std::size_t writable_ = 0;
  SolUring* uring_ = nullptr;
  int round_flags_ = 0;  // added to a round's send flags: MSG_ZEROCOPY or 0
  std::uint64_t round_sends_ = 0;
  std::vector<SolSend> sends_;  // one round's batched sends, kept for its capacity
  std::vector<std::size_t> sender_;    // index in list_ of each of sends_
};

}  // namespace sluice::peers
