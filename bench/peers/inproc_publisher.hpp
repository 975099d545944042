// Owns: InprocPublisher, the thread of sluiced-inproc that publishes the
// bench's events to one topic through the embedded server's own API, as an
// application that makes its events in process does: Server::publish (never
// blocks; answers busy while a loop has yet to deliver what the history
// would drop, and a subscriber a send budget behind is cut off) or
// Server::publish_waiting (waits, bounded, for the slowest fifo subscriber),
// by the topic's name or through a Publisher of it.
//
// Each event is one payload in sluice-bench's format (tools/bench/stamp.hpp)
// from publisher index 0, numbered 1, 2, ... with no number skipped: a
// refused publish (busy, timed_out, no_memory) is tried again with the same
// number, so a reader that sees a gap saw a loss in the server. The payload
// lives in one buffer, restamped in place before each try: the thread
// allocates nothing per event beyond what the server's publish does. With
// stamp_every K over 1 the clock is read for one event in K (and its
// tries), and the K - 1 after it carry its stamp, as a batch's events
// share one: the reader times one sample per stamp (the group's first
// event), and flat out (rate 0) the server's CPU per event counts one in K
// of the bench's own clock reads (the thread runs in the server's
// process). At a rate each event still reads the clock for its pace.
//
// With a batch over 1 the thread publishes that many events per call
// (Server::publish_batch, publish_batch_waiting), each in a buffer of its
// own, stamped with one clock read per try: what is left of a batch after
// a refusal is tried again, from the first event the server did not take.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sluice/server.hpp"

namespace sluice::peers {

enum class PublishCall : std::uint8_t { publish, waiting };
// How a call names its topic: by name (Server::publish), or through a
// Publisher of it (Server::publisher()), for one event per call.
enum class PublishVia : std::uint8_t { name, publisher };

struct InprocOptions {
  std::string topic = "fanout";  // sluice-bench fanout's default topic
  std::size_t size = 64;         // payload bytes, at least 32 (the stamp and number)
  double rate = 0;               // events/s; 0: as fast as the server takes them
  PublishCall call = PublishCall::publish;
  std::chrono::milliseconds wait{200};  // publish_waiting's timeout
  std::uint64_t start_after = 1;        // open streams before the first publish
  std::size_t batch = 1;                // events per call; over 1: the batch calls
  PublishVia via = PublishVia::name;    // for one event per call
  std::uint64_t stamp_every = 1;        // for one event per call: events per clock read
};

// What the thread did, readable while it runs.
struct InprocCounts {
  std::atomic<std::uint64_t> published{0};
  std::atomic<std::uint64_t> busy{0};       // publish answered busy or no_memory: tried again
  std::atomic<std::uint64_t> timed_out{0};  // publish_waiting ran out: tried again
};

class InprocPublisher {
 public:
  InprocPublisher(server::Server& server, const InprocOptions& options);
  ~InprocPublisher();  // stop()
  InprocPublisher(const InprocPublisher&) = delete;
  InprocPublisher& operator=(const InprocPublisher&) = delete;

  // Starts the thread: it waits until the server has `start_after` streams
  // open, then publishes until stop(), the server stopping, or a refusal
  // that trying again cannot cure (error()), upon which it stops the server.
  void start();
  // Ends the thread; a publish_waiting under way returns within its
  // timeout, a sleep for the rate at once.
  void stop();

  [[nodiscard]] const InprocCounts& counts() const { return counts_; }
  // Why the thread gave up; empty while it has not. Read after stop().
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  void run();
  bool wait_for_subscribers();
  // Sleeps until `when_ns` (bench::now_ns()); false when stop() came first.
  bool sleep_until(std::uint64_t when_ns);
  // Publishes event `seq` until the server takes it; false when stopped or refused for good.
  bool publish_one(std::uint64_t seq, server::Publisher* publisher);
  // publish_one() for events first_seq .. first_seq + batch - 1, in one call per try.
  bool publish_batch(std::uint64_t first_seq);
  // What a refused try of `seq` means: true to try again, false to stop.
  bool try_again(server::PublishStatus status, std::uint64_t seq);

  server::Server& server_;
  InprocOptions options_;
  std::vector<char> payload_;               // batch events of `size` bytes, one after another
  std::vector<server::BatchEvent> events_;  // each one's view of payload_
  InprocCounts counts_;
  std::atomic<bool> stop_{false};
  std::mutex stop_mutex_;  // stop_ is set under it; the rate's sleep waits on stop_wake_
  std::condition_variable stop_wake_;
  std::string error_;
  std::thread thread_;
};

}  // namespace sluice::peers
