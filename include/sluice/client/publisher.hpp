// Owns: Publisher, a blocking HTTP publisher that POSTs events to a sluice
// server over one kept-alive connection, and what each publish returns.
//
//   sluice::client::Publisher publisher;
//   if (auto e = publisher.open("http://127.0.0.1:8080/pub/news"); e.kind != ErrorKind::none) ...;
//   PublishResult r = publisher.publish("hello");   // r.id: the event's id
//
// Threads: one thread at a time; it blocks in publish() for at most about
// twice the timeout. It never retries a request the server may have seen,
// so an event is never published twice by it; only a kept-alive connection
// the server had already closed (nothing was read back) is reopened and
// the request sent again.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/client/options.hpp"
#include "sluice/client/status.hpp"

namespace sluice::client {

struct PublishResult {
  // none: published. http_status: refused (status, and `message` holds the
  // server's explanation); bad_response: not a sluice reply; and the
  // connection errors of ErrorKind (refused, connect_failed, closed,
  // idle_timeout for the timeout, io_error).
  ClientError error;
  int status = 0;                  // the HTTP status; 0 when no reply arrived
  std::string id;                  // 200: the event's id
  std::uint64_t subscribers = 0;   // 200: how many subscribers were handed it
  std::chrono::milliseconds retry_after{0};  // 503: the server's Retry-After
};

struct PublisherOptions {
  std::chrono::milliseconds timeout{10000};  // connect, and each request's whole exchange
  TlsOptions tls;                            // https://
  // Credentials for a server with auth on. Called on the publishing thread
  // before each request: a non-empty answer is sent as
  // "Authorization: Bearer TOKEN", so a source that renews its token (a
  // file rewritten by a sidecar) is followed from the next publish on. A
  // token holding a control character (CR, LF: it would end the header) is
  // not sent; the publish fails with bad_token. The token is never logged and
  // never part of an error message.
  std::function<std::string()> token;
  // When set, a publish waiting on the network gives up (ErrorKind::aborted)
  // once *interrupt is true: at once when a signal interrupts the wait (a
  // handler installed without SA_RESTART), within 100 ms otherwise. A
  // command-line tool sets it from its SIGINT handler, so Ctrl-C does not
  // wait out `timeout`.
  const std::atomic<bool>* interrupt = nullptr;
};

class Publisher {
 public:
  explicit Publisher(const PublisherOptions& options = {});
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Parses `url`: http(s)://host[:port]/pub/{topic}, with ?event=NAME and
  // ?key=K as the server takes them. Connects on the first publish.
  // Errors: bad_url, tls (the CA file cannot be read).
  [[nodiscard]] ClientError open(std::string_view url);

  // POSTs `data` as one event to the URL given to open().
  PublishResult publish(std::string_view data);
  // POSTs `data` to another target ("/pub/other?event=x") on the same server.
  PublishResult publish_to(std::string_view target, std::string_view data);

  // Closes the connection; the next publish opens another.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::client
