// Owns: MemoryCap, the server-wide count of the bytes connections hold
// outside the buffer pool, and MemoryAccount, one connection's share of it.
//
// The pool bounds what sluice sends. What a client sends it is held in
// buffers of their own: the input buffer, a WebSocket message being
// joined or inflated, a chunked body being joined. Each may grow to its own
// per-item limit (receive.budget_bytes, ws.max_message, http.max_body),
// and at max_connections those limits add up to far more than a machine
// has. So every growth of such a buffer past its small resting size is
// charged first: to the connection's account (limits.connection_bytes)
// and to the cap all connections share (limits.server_bytes). A charge
// that would pass either is refused, nothing is allocated, and the caller
// answers the client (or stops reading it) instead. One charge may pass
// the cap (charge_past_cap()): a buffer the connection's own limit bounds,
// without which a client would be served worse than over TCP.
//
// The cap is one atomic count: any loop charges it without a lock, and an
// account's charges go back to it when the account is destroyed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace sluice::buf {

enum class ChargeStatus : std::uint8_t {
  ok,
  over_connection,  // the connection's own limit would be passed
  over_server,      // the server-wide cap would be passed
};

class MemoryCap {
 public:
  explicit MemoryCap(std::size_t limit) : limit_(limit) {}
  MemoryCap(const MemoryCap&) = delete;
  MemoryCap& operator=(const MemoryCap&) = delete;

  [[nodiscard]] std::size_t limit() const { return limit_.load(std::memory_order_relaxed); }
  // Any thread (a reload). Binds the next charge. Nothing charged is taken
  // back: with more charged than a lowered limit, every growth is refused
  // until connections give back enough (they finish a request or message,
  // or close).
  void set_limit(std::size_t limit) { limit_.store(limit, std::memory_order_relaxed); }
  // Bytes charged now, by every connection.
  [[nodiscard]] std::size_t charged() const { return charged_.load(std::memory_order_relaxed); }
  // Charges refused since start, by which limit refused them.
  [[nodiscard]] std::uint64_t refused_by_connection() const { return refused_connection_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t refused_by_server() const { return refused_server_.load(std::memory_order_relaxed); }

 private:
  friend class MemoryAccount;
  // Adds `bytes` unless the limit would be passed; counts nothing.
  [[nodiscard]] bool take(std::size_t bytes);
  // Adds `bytes` whatever the limit: every charge() is then refused until
  // enough is given back (see MemoryAccount::charge_past_cap()).
  void take_past_limit(std::size_t bytes) { charged_.fetch_add(bytes, std::memory_order_relaxed); }
  void give_back(std::size_t bytes) { charged_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::atomic<std::size_t> limit_;
  std::atomic<std::size_t> charged_{0};
  // Word-sized, so the counts stay lock-free where 64-bit atomics need a
  // library (a 32-bit microcontroller); they wrap there after 2^32.
  std::atomic<std::size_t> refused_connection_{0};
  std::atomic<std::size_t> refused_server_{0};
};

// One connection's account. Used on its loop's thread only; the cap it
// draws on may be shared. A null cap charges the connection's limit only.
class MemoryAccount {
 public:
  MemoryAccount(MemoryCap* cap, std::size_t limit) : cap_(cap), limit_(limit) {}
  ~MemoryAccount() { release(charged_); }
  MemoryAccount(const MemoryAccount&) = delete;
  MemoryAccount& operator=(const MemoryAccount&) = delete;

  // Charges `bytes` to this account and to the cap, or to neither; a
  // refusal is counted (MemoryCap::refused_by_connection / _by_server).
  [[nodiscard]] ChargeStatus charge(std::size_t bytes) {
    const ChargeStatus status = try_charge(bytes);
    count_refusal(status);
    return status;
  }
  // charge() without counting a refusal: for a caller that may still do
  // without the memory (a read held to whole records), and counts the
  // refusal itself, with count_refusal(), only when it does not.
  [[nodiscard]] ChargeStatus try_charge(std::size_t bytes);
  void count_refusal(ChargeStatus status);
  // Charges `bytes` within this account's own limit, and to the cap even
  // past its limit (the cap's count says so, and refuses every other
  // charge until it is back under). For a buffer the caller must hold for
  // the client to be served as over TCP, which the account's limit bounds
  // per connection (a TLS record decrypted whole, past the input buffer's
  // spare room): the server then holds at most that much per connection
  // past the cap. over_connection when the account's limit would be passed.
  [[nodiscard]] ChargeStatus charge_past_cap(std::size_t bytes);
  // Gives back `bytes` charged before.
  void release(std::size_t bytes);
  // A buffer's charged size goes from `from` to `to` bytes: charges the
  // growth, or gives back the shrink (which always succeeds).
  [[nodiscard]] ChargeStatus resize(std::size_t from, std::size_t to) {
    if (to <= from) {
      release(from - to);
      return ChargeStatus::ok;
    }
    return charge(to - from);
  }

  [[nodiscard]] std::size_t charged() const { return charged_; }
  [[nodiscard]] std::size_t limit() const { return limit_; }

 private:
  MemoryCap* const cap_;
  const std::size_t limit_;
  std::size_t charged_ = 0;
};

// The bytes a buffer of `capacity` is charged for: what it holds past the
// `free` bytes every connection may keep at rest (counted in the
// connection's fixed cost instead).
[[nodiscard]] constexpr std::size_t charged_part(std::size_t capacity, std::size_t free) {
  return capacity > free ? capacity - free : 0;
}

}  // namespace sluice::buf
