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
// answers the client (or stops reading it) instead. A slice of the cap is
// held back from those charges (the reserve, limits.tls_record_reserve_bytes)
// for one kind of buffer only (charge_from_reserve()): a TLS record's rest,
// which a client is served worse than over TCP without; as the pool holds
// blocks back for control frames, so that what fills the rest cannot starve
// them. The cap stays the bound of both.
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
  // `reserve` (at most `limit`) is the part of `limit` only
  // charge_from_reserve() may take.
  explicit MemoryCap(std::size_t limit, std::size_t reserve = 0) : limit_(limit), reserve_(reserve) {}
  MemoryCap(const MemoryCap&) = delete;
  MemoryCap& operator=(const MemoryCap&) = delete;

  [[nodiscard]] std::size_t limit() const { return limit_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t reserve() const { return reserve_.load(std::memory_order_relaxed); }
  // Any thread (a reload). Binds the next charge. Nothing charged is taken
  // back: with more charged than a lowered limit, every growth is refused
  // until connections give back enough (they finish a request or message,
  // or close).
  void set_limit(std::size_t limit, std::size_t reserve = 0) {
    limit_.store(limit, std::memory_order_relaxed);
    reserve_.store(reserve, std::memory_order_relaxed);
  }
  // Bytes charged now, by every connection.
  [[nodiscard]] std::size_t charged() const { return charged_.load(std::memory_order_relaxed); }
  // Charges refused since start, by which limit refused them.
  [[nodiscard]] std::uint64_t refused_by_connection() const { return refused_connection_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t refused_by_server() const { return refused_server_.load(std::memory_order_relaxed); }

 private:
  friend class MemoryAccount;
  // Adds `bytes` unless the count would pass `bound`; counts nothing.
  [[nodiscard]] bool take(std::size_t bytes, std::size_t bound);
  // What ordinary charges may reach: the limit less the reserve.
  [[nodiscard]] std::size_t below_reserve() const {
    const std::size_t limit = this->limit();
    const std::size_t reserve = this->reserve();
    return limit > reserve ? limit - reserve : 0;
  }
  void give_back(std::size_t bytes) { charged_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::atomic<std::size_t> limit_;
  std::atomic<std::size_t> reserve_;
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
  // try_charge() that may also take the cap's reserve, up to its limit.
  // For a buffer the caller must hold for the client to be served as over
  // TCP (a TLS record decrypted whole, past the input buffer's spare room)
  // when ordinary charges have filled the rest. Nothing else draws on the
  // reserve, so those buffers find it however full the rest is; past it
  // they are refused (over_server) like any other charge.
  [[nodiscard]] ChargeStatus charge_from_reserve(std::size_t bytes);
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
