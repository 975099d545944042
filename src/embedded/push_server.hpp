// Owns: PushServer, a server of Server-Sent Events and WebSocket
// subscribers for a device: one loop, no threads, no heap after start-up,
// on any callback TCP stack (embedded/link.hpp).
//
// A client asks `GET /sse/{topic}` or opens a WebSocket on `/ws/{topic}`,
// naming up to kMaxTopicsPerConnection topics in all with `?topic=` (the
// path's topic may be left out: `/sse?topic=a&topic=b`); the application
// publishes with publish(topic, data). A client that comes back with
// Last-Event-ID (or `?lastEventId=`) gets the events after it that the
// history still has, and a sluice-reset notice first when some are gone.
// An idle subscriber gets a heartbeat (an SSE comment, a WebSocket ping)
// every PushConfig::heartbeat_polls of the link's timer. Each event is
// encoded once per wire form into a frame of the application's pool and
// queued by reference on every subscriber of the topic, under the
// subscriber's policy: a subscriber that cannot keep up loses the oldest
// events (or is cut off, with fifo), is told what it lost, and never makes
// the server hold more than its queue's budget. Control traffic (handshake
// answers, pongs, closes) goes through the control lane, which leaves
// before data and may use the pool's reserve, so a saturated subscriber
// never keeps another from being answered.
//
// Everything runs in the stack's context (the one loop of a NO_SYS=1 lwIP,
// or with its core lock held): the stack's callbacks call opened(),
// input() and closed(); the application calls publish() and, at the end of
// each batch, flush().
//
// Event ids count up across the whole server: each stream sees them rise,
// which is all an SSE client needs, and one counter costs 8 bytes where
// one per topic would need a table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "buf/pool.hpp"
#include "embedded/event_history.hpp"
#include "embedded/link.hpp"
#include "embedded/push_connection.hpp"
#include "proto/http1.hpp"
#include "sluice/policy.hpp"

namespace sluice::embedded {

struct PushConfig {
  Policy policy = Policy::drop_oldest;
  // Origins a WebSocket handshake may come from (ASCII case-insensitive);
  // empty: any.
  std::span<const std::string_view> allowed_origins;
  // Header lines a request may have; more is answered 431.
  std::size_t max_headers = 16;
  // Polls (the link's timer; lwIP's tcp_poll, every second by default) a
  // connection may take to send its whole request head; then 408 and
  // close. A client that connects and never finishes would hold its slot
  // for good otherwise.
  std::uint8_t request_polls = 10;
  // Polls of a subscriber with nothing sent to it after which it gets a
  // heartbeat, so that the client, and any proxy between, sees the stream
  // alive; 0: none.
  std::uint8_t heartbeat_polls = 15;
  // Polls a closing connection may take to send its last bytes (an answer,
  // a cut-off's hint or close frame); then it is reset and its blocks go
  // back. A peer that stops reading would keep its slot and its queue for
  // good otherwise. 0: no deadline.
  std::uint8_t close_polls = 10;
  // The event history's records, in the application's memory (a static
  // array); empty: none kept, and every resume is told it missed events.
  std::span<HistoryRecord> history;
};

struct PublishReport {
  std::uint64_t id = 0;          // the event's id
  std::size_t subscribers = 0;   // connections following the topic
  std::size_t queued = 0;        // queued for them
  std::size_t dropped = 0;       // lost to a policy or to a full pool (each one told later)
  std::size_t cut_off = 0;       // subscribers ended for falling behind (fifo, disconnect)
};

class PushServer {
 public:
  // `pool` holds every frame and outlives the server. Builds the shared
  // request parser, the one allocation of the server, here at start-up.
  explicit PushServer(buf::Pool& pool, const PushConfig& config = {});
  PushServer(const PushServer&) = delete;
  PushServer& operator=(const PushServer&) = delete;

  // A connection arrived: `connection` (idle) serves it through `link`
  // until closed().
  void opened(PushConnection& connection, Link& link);
  // `link` has new input, or its peer closed its side.
  void input(PushConnection& connection);
  // The link is gone (closed, reset, or dropped by the stack): the
  // connection is idle again and may serve the next one.
  void closed(PushConnection& connection);
  // The link's timer fired: ends a request phase that has taken more
  // than PushConfig::request_polls of them, resets a close that has taken
  // more than PushConfig::close_polls, and sends an idle subscriber its
  // heartbeat.
  void poll(PushConnection& connection);

  // Queues `data` as the next event of `topic` for every subscriber of it,
  // and keeps it in the history. Never allocates; never blocks. The bytes go out at flush() or as the
  // stack makes room.
  PublishReport publish(std::string_view topic, std::string_view data);

  // Hands every connection's queue to its stack: once per batch of
  // publishes, so one TCP write carries many events.
  void flush();

  [[nodiscard]] std::size_t connections() const;
  [[nodiscard]] std::size_t subscribers(std::string_view topic) const;
  [[nodiscard]] std::uint64_t last_id() const { return last_id_; }
  [[nodiscard]] buf::Pool& pool() { return pool_; }
  [[nodiscard]] const EventHistory& history() const { return history_; }

 private:
  // request_phase.cpp
  void on_request(PushConnection& c);
  void route(PushConnection& c, const proto::http1::Request& request);
  bool take_topics(PushConnection& c, const proto::http1::Request& request, std::string_view path_topic);
  bool subscribe_sse(PushConnection& c);
  bool subscribe_websocket(PushConnection& c, const proto::http1::Request& request);
  void refuse(PushConnection& c, int status, std::string_view reason);

  // websocket_input.cpp
  void on_websocket_input(PushConnection& c);
  bool answer_ping(PushConnection& c, buf::FrameRef pong);
  void end_websocket(PushConnection& c, proto::ws::CloseCode code, std::string_view reason);

  // resume.cpp
  void resume(PushConnection& c, const proto::http1::Request& request);

  // push_server.cpp
  void heartbeat(PushConnection& c);
  void deliver(PushConnection& c, std::size_t topic, const buf::FrameRef& frame, std::uint64_t id,
               PublishReport& report);
  bool tell_drops(PushConnection& c);
  bool push_notice(PushConnection& c, std::string_view kind, std::string_view fields);
  void cut_off(PushConnection& c);
  void end(PushConnection& c);
  buf::FrameRef encode(PushConnection::Phase form, std::string_view data, std::uint64_t id);

  buf::Pool& pool_;
  PushConfig config_;
  proto::http1::RequestParser parser_;
  EventHistory history_;
  PushConnection* head_ = nullptr;
  std::uint64_t last_id_ = 0;
};

}  // namespace sluice::embedded
