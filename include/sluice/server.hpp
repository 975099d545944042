// Owns: Server, the library's front door: the shared pool and topics, one
// event loop per thread, their listening sockets, a graceful stop, and the
// hooks through which the application takes part (authorizing requests,
// subscriptions and publishes; WebSocket open and close; per-connection
// data; sending to one connection).
//
//   sluice::server::Config config;            // defaults, or load_config_file()
//   sluice::server::Server server(config);
//   if (server.bind() != 0) ...;              // -errno
//   server.run();                             // until stop(), from any thread
//
// Each loop has its own listening socket on the same port (SO_REUSEPORT):
// the kernel spreads new connections over the loops, and a connection stays
// on the loop that accepted it. Every hook is called on that loop's thread,
// so a hook must be safe to run on several threads at once, and should be
// quick: the loop serves its other connections when the hook returns.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/authorization.hpp"
#include "sluice/config.hpp"
#include "sluice/connection_ref.hpp"
#include "sluice/stats.hpp"

namespace sluice::server {

enum class PublishStatus : std::uint8_t {
  ok,
  bad_topic,             // not a valid topic name
  bad_event,             // an event name with CR, LF or NUL, or over 255 bytes
  too_many_topics,       // topics.max reached
  too_many_subscribers,  // topics.max_subscribers reached
  no_memory,             // the pool has no blocks for the event: retry later
  busy,                  // a loop has yet to deliver the event the history would drop: retry
  reserved_event,        // an event name starting "sluice-": the server's notices are named so
  reserved_data,         // data starting {"sluice": the form of the server's notices on /ws
  bad_key,               // a key over 255 bytes
  // publish_waiting() only; nothing was published (by publish_batch_waiting(),
  // nothing past BatchResult::published):
  timed_out,    // no room within the wait's timeout (the subscribers still short of it are cut off)
  cannot_wait,  // called on a loop's thread (it would stop that loop), or the server has a broker
  bad_timeout,  // a timeout below 0 or above kMaxPublishWait
  // Any publish but one handed to a broker; nothing was published (past
  // BatchResult::published): the server's loops are stopping (stop(),
  // drain()), before the call or while it waited for room.
  stopped,
};

// How long publish_waiting() may wait, at most.
inline constexpr std::chrono::milliseconds kMaxPublishWait{10000};

// A publisher's choice to wait for its topic's slowest fifo subscriber
// rather than outrun it (publish_waiting()).
struct PublishWait {
  std::chrono::milliseconds timeout{200};  // 0 .. kMaxPublishWait
};

struct PublishResult {
  PublishStatus status = PublishStatus::ok;
  std::uint64_t id = 0;         // the event's sequence in its topic (ok only; 0 with a broker: Redis gives it later)
  std::size_t subscribers = 0;  // subscribers of the topic when it was published
};

// One event of a publish_batch(). Views: what they show must stay valid
// until the call returns (the server copies it).
struct BatchEvent {
  std::string_view data;
  std::string_view event = {};  // the SSE event name; empty: "message"
  std::string_view key = {};    // what `latest` conflates by; empty: the topic
};

// What publish_batch() answers: events[0 .. published) were published, in
// order; `status` is ok when that is all of them, else why events[published]
// was not (nothing after it was tried).
struct BatchResult {
  PublishStatus status = PublishStatus::ok;
  std::size_t published = 0;
  // The ids of the first and the last published (0 with a broker, or when
  // none was). Each event's id is above the one before it; they are
  // consecutive unless another publisher of the topic got in between.
  std::uint64_t first_id = 0;
  std::uint64_t last_id = 0;
  std::size_t subscribers = 0;  // subscribers of the topic at the last publish
};

// A publisher of one topic (Server::publisher()), for a thread that
// publishes event after event to it. The topic is looked up, made if need
// be, once, and held while the publisher lives: it counts against
// topics.max and is never reclaimed as idle meanwhile, so make publishers
// for the application's own topics, not one per name a client chose. The
// publisher builds its events' frames in a scratch of its own. So each
// publish skips the look-up under the topic table's lock, the topic's pin
// and the borrowed scratch that a publish by name takes for its call; it
// still takes the topic's own lock, which orders its events. publish() and
// publish_waiting() answer as Server's do for the topic, and are counted
// alike. Refused its topic at topics.max, a publisher asks again at each
// publish, as a publish by name would.
//
// What it holds between calls, beside the topic: at most one pool block
// (the one it packs small events' frames into), a few buffers the size of
// the largest event it built, and, once it has built a form for a
// permessage-deflate subscriber, a compressor of about 256 KiB.
//
// With a broker it holds no topic: each event is handed over as publish()
// hands it, and publish_waiting() answers cannot_wait.
//
// One thread at a time: each publishing thread takes its own. A Publisher
// must not outlive its Server: a Server destroyed while one of its
// publishers lives ends the process with a line saying so. A moved-from
// publisher answers bad_topic to every call. Batches go through
// Server::publish_batch(), which looks its topic up once per run anyway.
class Publisher {
 public:
  Publisher(Publisher&& other) noexcept;
  Publisher& operator=(Publisher&& other) noexcept;
  ~Publisher();

  // ok when the publisher holds its topic; else why it could not
  // (bad_topic, too_many_topics), which every publish answers too.
  [[nodiscard]] PublishStatus status() const;
  [[nodiscard]] std::string_view topic() const;
  PublishResult publish(std::string_view data, std::string_view event = {}, std::string_view key = {});
  PublishResult publish_waiting(std::string_view data, PublishWait wait, std::string_view event = {},
                                std::string_view key = {});

 private:
  friend class Server;
  struct Impl;  // src/server/server_publish.cpp
  explicit Publisher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Server {
 public:
  // `config` is copied; validate() it first (sluiced does).
  explicit Server(const Config& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens on config.listen, one socket per loop. Returns 0 or
  // -errno.
  [[nodiscard]] int bind();
  // The bound port (useful with port 0).
  [[nodiscard]] std::uint16_t port() const;
  // The admin API's bound port (config.ops.admin_listen); 0 when there is none.
  [[nodiscard]] std::uint16_t admin_port() const;
  [[nodiscard]] std::size_t loops() const;

  // Serves until stop(): loop 0 on the calling thread, the others on
  // threads of their own. Then drains (stops accepting, flushes every
  // connection, closes them) and returns.
  void run();
  // Safe from any thread and from a signal handler.
  void stop();
  // stop(), but the connections get up to `grace` (rather than the linger
  // timeout) to take their goodbye and close: SSE streams a `retry:` hint,
  // WebSockets a 1001 close. The listeners stop listening at once, so new
  // clients are refused. POST /admin/drain calls it. Any thread.
  void drain(std::chrono::milliseconds grace);

  // Thread-safe. Returns the event's id, or why it was refused; stopped,
  // uncounted, once the server's loops are stopping (stop(), drain()): they
  // deliver no new event, at most what they held for connections still
  // closing. With a broker (broker.url) the event is handed to a loop that
  // sends it to Redis (a draining loop still does, for the other nodes): ok
  // means handed over (id 0), busy that broker.max_pending events wait
  // already; Redis's own refusal is not reported back.
  PublishResult publish(std::string_view topic, std::string_view data, std::string_view event = {},
                        std::string_view key = {});
  // publish(), for a publisher that would rather slow down to its
  // subscribers than have them cut off. publish() never blocks: a fifo
  // subscriber that falls a send budget behind (send.budget_frames,
  // send.budget_bytes) is cut off, and a publisher that outpaces every
  // subscriber cuts them all off together. This call instead waits, at
  // most `wait.timeout`, until the topic has room for the event:
  //   - no fifo subscriber of the topic, on any loop, is short of room: its
  //     queue holds more than half its send budget (frames or bytes), and it
  //     counts as short until a flush has it back at a quarter (or it leaves);
  //   - no loop that follows the topic is W or more events behind, W being
  //     a quarter of the send budget in events of this one's size (and at
  //     most half of topics.history_events). The budget is the smallest in
  //     force since the Server was made, as connections keep the budget
  //     they opened with: a reload narrows W, at the next look of a wait
  //     under way too, and never widens it.
  // So a subscriber with room takes at most W more events before the
  // publisher looks again, and stays within its budget as long as events
  // are of similar size: each subscriber gets every event, in order, at the
  // pace of the slowest. The loops wake a waiting publisher as soon as they
  // deliver or a subscriber's queue drains; while nobody waits, that costs
  // them one atomic read-modify-write per delivery to a topic.
  // Answers:
  //   ok           published (as publish());
  //   timed_out    no room within `wait.timeout`; nothing was published.
  //                The fifo subscribers still short of room are then cut
  //                off (as one past its budget is: it resumes by id and
  //                misses nothing), so that a subscriber that stopped
  //                reading holds the topic back for one timeout, not for
  //                good: the caller publishes again and the rest go on;
  //   cannot_wait  called on one of the server's loop threads (from a hook,
  //                or an every() callback: waiting there would stop the
  //                very loop that must make room), or the server has a
  //                broker (Redis's readers deliver); nothing was published;
  //   bad_timeout  `wait.timeout` outside 0..kMaxPublishWait;
  //   stopped      the server's loops stopped (stop() or drain()) while
  //                it waited, or before it was called: it returns at
  //                once, nothing was published. A Server must outlive
  //                the calls still inside publish_waiting(): stop it, join
  //                the publishers, then destroy it;
  //   any other    refused, as publish() refuses.
  // Any thread but a loop's. Allocates nothing once the topic exists.
  PublishResult publish_waiting(std::string_view topic, std::string_view data, PublishWait wait,
                                std::string_view event = {}, std::string_view key = {});
  // publish() and publish_waiting() for several events of one topic at
  // once, for a publisher that has them at hand together (a sensor's burst,
  // a batch read from a queue): each run of up to kMaxRunEvents events looks
  // the topic up once, takes its lock once, reads the clock once and wakes
  // each loop at most once, so a loop drains the run together and sends it
  // in one write per subscriber. Each event is checked and refused as
  // alone; the first refusal ends the batch. A run whose own events fill
  // the topic's history (or the pool) ends early and the next run follows:
  // the waiting form waits for the loops to take them, publish_batch()
  // answers busy (or no_memory) if they have not yet, as the same events
  // one by one would; call it again with events[published ..]. The waiting
  // form waits for room as publish_waiting() does, as often as the batch
  // needs: each wait at most `wait.timeout` from the first look that found
  // no room since the last event published, so the whole call may take
  // longer. Whatever the status, events[0 .. published) stay published
  // (timed_out and stopped included). With a broker each event is handed to
  // Redis as publish() hands it (nothing is saved; busy past
  // broker.max_pending) and the waiting form answers cannot_wait. Same
  // threads and allocations as the single calls; an empty batch publishes
  // nothing and checks the topic.
  static constexpr std::size_t kMaxRunEvents = 128;
  BatchResult publish_batch(std::string_view topic, std::span<const BatchEvent> events);
  BatchResult publish_batch_waiting(std::string_view topic, std::span<const BatchEvent> events, PublishWait wait);
  // A Publisher of `topic` (see above); check its status(). Any thread. A
  // server topic ("$sys") is refused as publish() refuses it.
  [[nodiscard]] Publisher publisher(std::string_view topic);
  // Calls `fn` every `period` on loop 0's thread; set before run().
  void every(std::chrono::milliseconds period, std::function<void()> fn);

  // Reloading what may change while serving. reload() reads the TLS
  // certificate and key again (connections accepted from then on get the
  // new ones; open connections keep theirs and are not dropped), then runs
  // each step added with on_reload(), in order. Any thread; two reloads
  // asked at once run one after the other. Returns one line per failure;
  // whatever failed goes on with its old value.
  std::vector<std::string> reload();
  // Async-signal-safe (sluiced calls it on SIGHUP): loop 0 runs reload() at
  // its next tick and hands the failures to on_reloaded. The caller does
  // no work itself: it writes to an eventfd loop 0 watches.
  void request_reload();
  // A step of every reload: returns an error line, or nullopt. Set before run().
  void on_reload(std::function<std::optional<std::string>()> step);
  // Called on loop 0 when a request_reload() has run, with its failures
  // (none: everything was read again), and only once every loop has taken
  // the settings a reload step handed to the loops: from then on, new work
  // on any loop is bound by them. Set before run().
  void on_reloaded(std::function<void(const std::vector<std::string>& failures)> fn);
  // Why bind() failed when an errno does not say it (a TLS certificate or
  // key that cannot be loaded: one line naming the key and the path; a
  // pool the machine cannot give: one naming its keys).
  [[nodiscard]] const std::string& bind_error() const;

  // The hooks; set them before run(). Each is called on the connection's
  // loop (see the top of this file). An exception out of on_open closes
  // that WebSocket with 1011 (on_close still follows); one out of on_close
  // is dropped. Either way the loop serves its other connections on.
  void on_open(OpenHandler fn);
  void on_close(CloseHandler fn);

  // Asks `fn` before the server does what a client asks, never per event:
  //   connect    every HTTP request, before it is routed (the place to read
  //              a token once and keep what it grants in `request.user`);
  //   subscribe  each topic of GET /sse, before the stream head goes out;
  //              a WebSocket on /ws/{topic}, before the upgrade is answered;
  //              every /ws subscribe;
  //   publish    every POST /pub/{topic}; a WebSocket on /pub/{topic},
  //              before the upgrade is answered; the first message of a
  //              WebSocket on /ws/{topic} (once for the stream's life);
  //              every /ws publish;
  //   refresh    a /ws {"op":"refresh"} with its `token`: the place to
  //              verify new credentials and replace `request.user`; then
  //              subscribe (`held` true) for each topic the stream follows,
  //              and a topic refused is left with a `revoked` notice.
  // A WebSocket's later checks are shown its upgrade request (method, path,
  // query, headers: a copy of at most http.max_header_bytes is kept with
  // the connection while an authorizer is installed).
  //
  // A refusal is counted (ServerStats::denied) and answered where the
  // client can read it, and nothing of what was asked happens:
  //   an HTTP request: the status, the reason as the body (Retry-After with
  //     a 429 or 503 that gives one, WWW-Authenticate with a 401), and the
  //     connection closes;
  //   a WebSocket refused at its upgrade: the upgrade is answered 101 (a
  //     browser cannot read a refused upgrade's status, but can read a
  //     close reason), then closed with 4000 + the status (4401, 4403,
  //     4429; 1013, try again later, for a 503) and "STATUS reason"; it never opened for the application:
  //     neither on_open nor on_close is called;
  //   a topic stream refused at its first message: closed the same way
  //     (it had opened: on_close follows);
  //   a /ws subscribe or publish: a failed ack with "STATUS reason"; the
  //     connection and its other subscriptions go on;
  //   a /ws refresh: a failed ack, then the connection is closed the same
  //     way as a refused upgrade.
  // An allow of connect or refresh may say until when the credentials hold
  // (AuthDecision::until): a stream opened on them ends then unless a
  // refresh moves it (a WebSocket closed 4401 "401 token expired", an SSE
  // stream ended), checked by the loop's sweep and on each WebSocket read.
  // An exception out of `fn` is a refusal too, as the server's own failure:
  // 500, close 1011 or "500 authorization failed", and the loop goes on; the
  // exception's text is never sent.
  //
  // `fn` is called on the connection's loop and must not block it. A
  // decision that needs time (a key server, a database, the application's
  // backend) is given later: `fn` takes a handle with
  // request.answer_later(), returns AuthDecision::later(), and gives the
  // decision through the handle, on the loop's thread or any other (one
  // given elsewhere is handed to the loop, authorization.hpp). Meanwhile the connection waits and its loop serves
  // every other one: an HTTP request is left unanswered and nothing behind
  // it is read; a WebSocket message (a /ws subscribe or publish, a topic
  // stream's first message) is kept, its ack and the requests behind it
  // wait; a WebSocket upgrade is answered once the decision is known. Then
  // the request or message is handled again, each check given the answer
  // it already had (the authorizer is asked each question once). A
  // decision not given within auth.callback_timeout_ms is a 503 (close
  // 1013, a failed ack) and the handle is withdrawn; a connection that
  // closes first withdraws it too (AuthReply::on_withdrawn). A /ws refresh,
  // the topics it asks again (`held`), and requests over HTTP/2 cannot
  // wait: there request.can_wait() is false and the decision is made now.
  // What was allowed is not asked again: a subscription or a topic stream's
  // publishing, once allowed, lasts for the stream's life, or until its
  // credentials expire or a refresh no longer grants it.
  void authorize(Authorizer fn);

  [[nodiscard]] ServerStats stats() const;
  [[nodiscard]] PoolStats pool_stats() const;
  [[nodiscard]] MemoryStats memory_stats() const;

  struct Impl;  // src/server/server_impl.hpp

 private:
  std::unique_ptr<Impl> impl_;

  friend Impl& impl_of(Server& server);
};

// The loops a config asks for: `threads`, or one per core when it is 0.
[[nodiscard]] unsigned loop_count(const Config& config);

}  // namespace sluice::server
