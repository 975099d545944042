// Owns: H2Exchange, what the connection keeps for one HTTP/2 stream it
// serves (an SSE stream, a WebSocket stream, a POST whose body is
// arriving, or a request waiting for its authorization), and H2Exchanges,
// the connection's fixed set of them.
//
// The set never holds more than h2.max_concurrent_streams exchanges, and
// a spent one is reused for the next stream with what it had grown (its
// strings' capacity, its body's way into the pool), so a connection that
// opens stream after stream allocates nothing once warm. A stream is found
// by id through an open-addressed table kept at most half full, which
// grows (up to twice the limit) only while the number of streams open at
// once reaches a new high: a lookup per DATA frame neither allocates nor
// walks the set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "session/h2_body.hpp"
#include "session/h2_stream_outlet.hpp"
#include "session/h2_waiting.hpp"
#include "session/peer.hpp"

namespace sluice::session {

class H2HeldResponse;
class SseStream;
class WsStream;

struct H2Exchange {
  // `bodies`: the share of the pool all request bodies may hold (H2Body).
  H2Exchange(buf::Pool& pool, buf::BlockShare* bodies);
  ~H2Exchange();
  H2Exchange(const H2Exchange&) = delete;
  H2Exchange& operator=(const H2Exchange&) = delete;

  // Ready for another stream: the stream objects go, capacity stays.
  void reset();
  // Holds a stream object that may be on the call stack when the stream
  // closes (a stream, or a request being routed again once its
  // authorization came), so its slot is reused only after the call returns.
  [[nodiscard]] bool holds_stream() const { return outlet != nullptr || waiting != nullptr; }
  // The stream's request waits for an authorization decision.
  [[nodiscard]] bool waits_for_authorization() const { return waiting != nullptr && waiting->round().pending(); }

  std::int32_t id = 0;  // 0: not in use
  std::unique_ptr<H2StreamOutlet> outlet;
  // A WebSocket stream's client as the application sees it: a connection
  // of its own (its ConnectionRef, on_open and on_close, the request its
  // later checks are shown, its credentials' expiry). Outlives `ws`.
  std::unique_ptr<Peer> peer;
  // The HEADERS of `sse` or `ws`, which send them (held while their topics
  // wait for their place); outlives them. `answered`: the status they went
  // with, 0 until then.
  std::unique_ptr<H2HeldResponse> response;
  int answered = 0;
  std::unique_ptr<SseStream> sse;
  std::unique_ptr<WsStream> ws;
  // The client ended `ws`'s stream (END_STREAM) while the stream still owed
  // answers: it is asked again each time its input resumes.
  bool ws_ended = false;
  // Bytes not yet given back to the client's window: a WebSocket stream's
  // not yet decoded, or any stream's while its authorization waits.
  std::string unread;
  std::unique_ptr<H2Waiting> waiting;  // the request, when its authorization waited
  bool posting = false;  // a checked POST /pub: `body` is its body so far
  io::Loop::Clock::time_point posting_since{};  // its body began to be read (its checks passed)
  // A POST sent to the broker waits for Redis's answer under this ticket
  // (BrokerPublishes); its body's length is kept for the access log.
  bool awaiting_broker = false;
  std::uint32_t broker_ticket = 0;
  std::size_t posted_bytes = 0;
  std::string topic, event, key, allow_origin;
  std::string logged_target, logged_agent;  // for the access log's line (log.access)
  H2Body body;
};

class H2Exchanges {
 public:
  // At most `capacity` exchanges at once (h2.max_concurrent_streams).
  H2Exchanges(std::size_t capacity, buf::Pool& pool, buf::BlockShare* bodies = nullptr);
  ~H2Exchanges();
  H2Exchanges(const H2Exchanges&) = delete;
  H2Exchanges& operator=(const H2Exchanges&) = delete;

  // An exchange for `id`, or null when all are in use (or `id` has one).
  [[nodiscard]] H2Exchange* open(std::int32_t id);
  [[nodiscard]] H2Exchange* find(std::int32_t id) const;
  // The stream is gone: `exchange` is no longer found. One holding no
  // stream object is ready for reuse at once; the others after
  // release_retired().
  void retire(H2Exchange& exchange);
  // Retires every open exchange (the connection closed).
  void retire_all();
  // Called once no call into a retired exchange's stream can be under way.
  void release_retired();

  [[nodiscard]] std::size_t open_count() const { return open_; }
  [[nodiscard]] bool empty() const { return open_ == 0; }

  // Calls `visit` with each open exchange. `visit` must not open or
  // retire exchanges.
  template <class Visit>
  void for_each(Visit&& visit) {
    for (const auto& slot : slots_) {
      if (slot->id != 0) visit(*slot);
    }
  }
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const auto& slot : slots_) {
      if (slot->id != 0) visit(static_cast<const H2Exchange&>(*slot));
    }
  }

 private:
  struct Entry {
    std::int32_t id = 0;  // 0: empty
    std::uint32_t slot = 0;
  };
  static constexpr std::size_t kFirstTableSize = 16;

  [[nodiscard]] std::size_t home(std::int32_t id) const;
  void insert(Entry entry);
  void grow_table();
  // Where `id` is in the table, or table_.size().
  [[nodiscard]] std::size_t position(std::int32_t id) const;
  // Empties the table's entry `hole`.
  void erase(std::size_t hole);

  const std::size_t capacity_;
  buf::Pool& pool_;
  buf::BlockShare* bodies_;
  std::vector<std::unique_ptr<H2Exchange>> slots_;  // made as first needed, up to capacity_
  std::vector<std::uint32_t> free_;                 // slots ready for reuse
  std::vector<std::uint32_t> retired_;              // slots waiting for release_retired()
  std::vector<Entry> table_;                        // a power of two, at least twice the open exchanges
  std::size_t open_ = 0;
};

}  // namespace sluice::session
