// Owns: SseClient, a Server-Sent Events subscriber that reads its stream on
// its own thread, reconnects with back-off when the stream ends or fails,
// and resumes from the last event id it received (the Last-Event-ID header),
// so that a server that replays history loses the application nothing.
//
//   sluice::client::SseClient client({.delivery = Delivery::queue});
//   if (auto e = client.start("http://127.0.0.1:8080/sse/news"); e.kind != ErrorKind::none) ...;
//   sluice::client::Event event;
//   while (client.next(event, 1s) != NextStatus::ended) { ... }
//
// Threads: the client's own thread connects, reads, parses and fills the
// inbox; every public function is safe from any thread. The options'
// callbacks (on_status, latest_key) run on the client's thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/client/event.hpp"
#include "sluice/client/options.hpp"
#include "sluice/client/status.hpp"

namespace sluice::client {

class SseClient {
 public:
  explicit SseClient(const ClientOptions& options = {});
  // Stops the client (see stop()).
  ~SseClient();
  SseClient(const SseClient&) = delete;
  SseClient& operator=(const SseClient&) = delete;

  // Parses `url` (http(s)://host[:port]/sse/{topic} or /sse?topic=a&topic=b,
  // with ?policy=... as the server offers) and starts the client's thread.
  // Over https:// the stream uses HTTP/2 when the server offers it (see
  // ClientOptions::http2). A non-empty `last_id` is sent as Last-Event-ID
  // on the first connection, to resume a stream read earlier. Returns kind
  // none once started, else a fatal error, starting nothing: bad_url (also
  // for a ws:// URL, or a last_id holding CR, LF or NUL), tls (the CA file
  // cannot be read), resources (no thread or eventfd, or a second start()).
  //
  // Events of a stream of one topic carry that topic; on a stream of several
  // topics a message's topic is empty (SSE does not carry it), while
  // dropped and reset notices name theirs. Events named "sluice-dropped"
  // and "sluice-reset" become EventKind::dropped and EventKind::reset.
  [[nodiscard]] ClientError start(std::string_view url, std::string_view last_id = {});

  // Takes the next event, waiting up to `wait`. `out`'s old buffers are
  // recycled by the client. `ended` after stop() or a fatal error, once
  // every event received before it was taken; error() then says why.
  NextStatus next(Event& out, std::chrono::milliseconds wait);

  // Drops the current connection (or cuts a back-off short) and connects
  // again at once, resuming from last_id(): after a network change, say.
  void reconnect();
  // Ends the connection and joins the client's thread. Idempotent; events
  // already received stay available to next(). From on_status (the
  // client's own thread) it only asks the thread to end.
  void stop();

  [[nodiscard]] ClientState state() const;
  // The last error: the one being retried after, or the fatal one.
  [[nodiscard]] ClientError error() const;
  // The id of the last event handed to the inbox: where a reconnection resumes.
  [[nodiscard]] std::string last_id() const;
  [[nodiscard]] ClientStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::client
