// Owns: HiredisLoop, the glue that lets one hiredis async connection run on
// a sluice event loop: the five hooks hiredis calls (addRead, delRead,
// addWrite, delWrite, cleanup), and the loop events that drive it.
//
// Two things differ from hiredis's own adapters:
//   - The epoll backend reports readiness once per change (edge-triggered),
//     but hiredis reads at most 16 KiB per call. After each call the socket
//     is peeked, and hiredis reads again while bytes (or the peer's EOF)
//     remain, so a large reply never waits for an event that will not come.
//   - Writes are batched to the end of the tick: a command only marks the
//     connection for a flush (Loop::defer), so every command issued during
//     one tick leaves in one write, and the write watcher is installed only
//     after a short write, like a client connection's.
// There is no thread and no timer here; RedisLink adds the timeouts.
#pragma once

#include <hiredis/async.h>

#include <cstdint>

#include "broker/reply_budget.hpp"
#include "io/loop.hpp"

namespace sluice::broker {

class HiredisLoop final : public io::Handler, public io::Deferred {
 public:
  // Told when hiredis lets go of the context (its cleanup hook): the fd is
  // about to be closed, and the context freed right after.
  class Owner {
   public:
    virtual void context_released() = 0;
    // The bytes of an answer not yet whole are past the budget: the owner
    // closes the connection.
    virtual void input_over_budget() = 0;

   protected:
    ~Owner() = default;
  };

  HiredisLoop(io::Loop& loop, Owner& owner) : loop_(loop), owner_(owner) {}
  ~HiredisLoop();
  HiredisLoop(const HiredisLoop&) = delete;
  HiredisLoop& operator=(const HiredisLoop&) = delete;

  // Installs the hooks on a context that is connecting and watches its
  // socket; its answers are built within `budget` (reply_budget.hpp), which
  // must outlive the context. Returns 0 or -errno (the context is then left
  // unattached).
  [[nodiscard]] int attach(redisAsyncContext* context, ReplyBudget& budget);
  [[nodiscard]] bool attached() const { return context_ != nullptr; }

  void on_ready(std::uint32_t events) override;
  void run_deferred() override;

 private:
  static void add_read(void* self);
  static void del_read(void* self);
  static void add_write(void* self);
  static void del_write(void* self);
  static void cleanup(void* self);

  void want_write();
  void set_interest(std::uint32_t interest);
  void read_all();
  void write_now();
  [[nodiscard]] bool connected() const;

  io::Loop& loop_;
  Owner& owner_;
  redisAsyncContext* context_ = nullptr;
  ReplyBudget* budget_ = nullptr;
  int fd_ = -1;
  std::uint32_t interest_ = 0;  // what the loop watches the socket for
  bool writing_ = false;      // inside hiredis's write handler
};

}  // namespace sluice::broker
