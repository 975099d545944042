// Owns: ReadQueue, the line in which one loop's sockets wait for a turn at
// reading when more bytes are waiting than one tick may read, and the
// tick's read budget.
//
// A connection reads when its socket is reported readable, until the kernel
// has no more (EAGAIN) or its turn is over. A turn is the connection's own
// (receive.turn_bytes) cut to what the tick has left of its budget
// (receive.tick_bytes), but never less than one read chunk. A turn that ends
// with bytes still waiting puts the reader at the back of this line; once
// the sockets' events of a tick are handled, the loop serves the line from
// the front until the budget is spent, and the rest wait, in order, for the
// next tick. A reader in the line ignores readiness: its place is its turn.
//
// What it protects against: thousands of connections that always have bytes
// to send. Each used to read a whole turn on every tick, so one tick read
// gigabytes and a well-behaved request waited seconds behind them. Now a
// tick reads at most its budget, plus one chunk for each reader the budget
// no longer covers; a connection that was idle reads its request on the
// tick its bytes are reported, ahead of the line; and a flooding
// connection that is not being read leaves its socket full, so its kernel
// reports nothing new and the events of the others come through.
//
// Intrusive: the links live in the Reader, so queueing never allocates.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::io {

class Reader {
 public:
  // The reader's turn in the line came: read on (within turn(), below).
  virtual void read_turn() = 0;

 protected:
  ~Reader() = default;

 private:
  friend class ReadQueue;
  Reader* next_ = nullptr;
  Reader* prev_ = nullptr;
  bool queued_ = false;
  std::uint64_t queued_in_ = 0;  // the serve() round it joined the line in
};

class ReadQueue {
 public:
  static constexpr std::size_t kDefaultTickBytes = 1 << 20;

  explicit ReadQueue(std::size_t tick_bytes = kDefaultTickBytes) : tick_bytes_(tick_bytes), left_(tick_bytes) {}
  ReadQueue(const ReadQueue&) = delete;
  ReadQueue& operator=(const ReadQueue&) = delete;

  // Bytes all readers together may read in one tick (at least `floor` for
  // each, see turn()).
  void set_tick_bytes(std::size_t bytes) { tick_bytes_ = left_ = bytes; }
  [[nodiscard]] std::size_t tick_bytes() const { return tick_bytes_; }
  // A new tick: the whole budget again.
  void start_tick() { left_ = tick_bytes_; }

  // What a reader may read in the turn it starts now: `own_turn`, cut to
  // what the tick has left, but at least `floor` (one read chunk), so that a
  // request is read on the tick it arrives even when the budget is spent.
  [[nodiscard]] std::size_t turn(std::size_t own_turn, std::size_t floor) const;
  // Counts `bytes` read against the tick's budget.
  void spend(std::size_t bytes) { left_ = bytes >= left_ ? 0 : left_ - bytes; }
  [[nodiscard]] std::size_t left() const { return left_; }

  // Puts `reader` at the back of the line; a no-op when it is in it.
  void push_back(Reader* reader);
  // Takes `reader` out of the line (a closed connection); a no-op when it
  // is not in it.
  void remove(Reader* reader);
  [[nodiscard]] bool queued(const Reader* reader) const { return reader->queued_; }
  [[nodiscard]] bool empty() const { return head_ == nullptr; }
  [[nodiscard]] std::size_t size() const { return size_; }

  // Gives readers their turns from the front while the tick's budget lasts,
  // and always to the first, so the line moves even when the sockets' own
  // events spent the budget. Only the readers in line when it starts are
  // served: one that queues again goes to the back and waits for the next
  // tick.
  void serve();

 private:
  Reader* pop_front();

  std::size_t tick_bytes_;
  std::size_t left_;
  Reader* head_ = nullptr;
  Reader* tail_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t round_ = 0;  // serve() calls so far
};

}  // namespace sluice::io
