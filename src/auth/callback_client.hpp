// Owns: CallbackClient, which asks the authorization callback
// (auth.callback_url) whether a client may subscribe to or publish on a
// topic, for applications that keep their sessions in their own backend
// (as Nchan's nchan_authorize_request and Centrifugo's proxy do). The wire
// contract is in callback_request.hpp.
//
// One client per loop, used on that loop's thread. Asking never blocks: the
// answer comes back through a callback once the callback server replies,
// auth.callback_timeout_ms passes (503), or never if the asker cancels
// first (its connection went away). At most auth.callback_max_inflight
// questions are open at once; past that the answer is an immediate 503, so
// a flood of clients cannot pile up sockets. Answers are cached
// (callback_cache.hpp) and a cached one is given at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "auth/callback_cache.hpp"
#include "auth/callback_exchange.hpp"
#include "auth/callback_request.hpp"
#include "auth/callback_target.hpp"
#include "io/loop.hpp"

namespace sluice::auth {

struct CallbackConfig {
  std::vector<std::string> forward_headers;   // auth.callback_headers: copied from the client's request
  std::chrono::milliseconds timeout{2000};    // auth.callback_timeout_ms: 503 past it
  std::chrono::milliseconds cache_ttl{5000};  // auth.callback_cache_ms: 0 caches nothing
  std::size_t cache_entries = 10000;          // auth.callback_cache_entries (per loop)
  std::size_t max_inflight = 64;              // auth.callback_max_inflight (per loop): 503 past it
  std::size_t max_reply_head = 8192;          // auth.callback_max_reply_bytes: a longer head is a 503
};

class CallbackClient final : private ExchangeOwner, private io::Deferred {
 public:
  using Done = std::function<void(const Decision&)>;
  using Ticket = std::uint64_t;

  struct Asked {
    std::optional<Decision> now;  // answered at once (cache, over the in-flight bound, unreachable)
    Ticket ticket = 0;            // otherwise: `done` will be called with the answer
  };

  CallbackClient(io::Loop& loop, CallbackTarget target, CallbackConfig config);
  ~CallbackClient();
  CallbackClient(const CallbackClient&) = delete;
  CallbackClient& operator=(const CallbackClient&) = delete;

  // Answers at once when it can (Asked::now; `done` is then never called).
  // Otherwise sends the question and calls `done` exactly once, later, on
  // the loop's thread, never from inside ask().
  [[nodiscard]] Asked ask(const CallbackQuestion& question, Done done);

  // Drops a pending question: its connection is closed and `done` is never
  // called. Unknown or answered tickets are ignored.
  void cancel(Ticket ticket);

  [[nodiscard]] std::size_t in_flight() const { return pending_.size(); }
  [[nodiscard]] const CallbackCache& cache() const { return cache_; }

 private:
  struct Pending {
    std::unique_ptr<CallbackExchange> exchange;
    Done done;
    CallbackCache::Key key;
    io::Loop::TimerId timer = 0;
  };

  void exchange_done(CallbackExchange& exchange, Decision decision) override;
  void run_deferred() override;
  void on_timeout(Ticket ticket);
  // Takes `ticket` off the pending list; its exchange is destroyed at the
  // end of the tick (it may be the caller).
  [[nodiscard]] std::optional<Pending> retire(Ticket ticket);

  io::Loop& loop_;
  CallbackTarget target_;
  CallbackConfig config_;
  CallbackCache cache_;
  std::unordered_map<Ticket, Pending> pending_;
  std::vector<std::unique_ptr<CallbackExchange>> retired_;
  Ticket next_ticket_ = 1;
};

}  // namespace sluice::auth
