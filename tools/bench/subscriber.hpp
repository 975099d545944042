// Owns: Subscriber, what ClientPool needs of one subscriber whatever its
// protocol (SseSubscriber, H2cSseSubscriber, WsSubscriber: one class per protocol), the options they
// share, and the choice between them (--proto sse|ws).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "reader_context.hpp"
#include "tls_client.hpp"
#include "io/loop.hpp"
#include "io/socket.hpp"

namespace sluice::bench {

enum class Proto : std::uint8_t { sse, ws };

struct SubscriberOptions {
  io::Endpoint server;
  std::string path = "/sse/bench";  // GET target
  int receive_buffer = 0;           // SO_RCVBUF before connect; 0: kernel default
  Proto proto = Proto::sse;
  std::string last_event_id;  // WebSocket: sent as Last-Event-ID, to resume after it; empty: live only
  std::string source;         // local IPv4 address to connect from; empty: the kernel's choice
  std::shared_ptr<const TlsClient> tls;  // set: the stream is read over TLS
  // SSE over HTTP/2: this many streams on the connection
  // (H2cSseSubscriber), by prior knowledge in clear, chosen by ALPN over
  // TLS; 0: HTTP/1.1.
  std::size_t h2_streams = 0;
};

class Subscriber : public io::Handler {
 public:
  virtual ~Subscriber() = default;
  // Connects, sends the request and watches the socket. False (counted as
  // failed) when the connection was refused.
  virtual bool start() = 0;

  // The socket's received-segment count (TCP_INFO) just before the request
  // went out: what arrives from then on, the head included, is the reply's.
  // Taken after the request, a server that answers at once would already
  // have delivered part of it.
  [[nodiscard]] std::uint64_t segments_at_request() const { return segments_at_request_; }

 protected:
  std::uint64_t segments_at_request_ = 0;
};

// One recv() (or TLS read) into the thread's shared buffer, as every
// session reads: on bytes, `now` is the read's time (shared by the events
// in it) and the byte counter grows (plaintext bytes, over TLS). EINTR is
// retried.
enum class Received : std::uint8_t { bytes, again, eof, error };
[[nodiscard]] Received receive(ReaderContext& context, Channel& channel, std::string_view& bytes, std::uint64_t& now);

// Connects to options.server, opens `channel` on the socket (the TLS
// handshake when options.tls is set, asking ALPN for h2 when
// options.h2_streams is set), notes `segments_at_request` and
// writes `request`, blocking; then makes the socket non-blocking. The fd
// (>= 0), or -1 with `why` set.
[[nodiscard]] int open_stream(const SubscriberOptions& options, std::string_view request, Channel& channel,
                              std::uint64_t& segments_at_request, std::string& why);

// A session of `options.proto` (over HTTP/2 when options.h2_streams is set), not started.
[[nodiscard]] std::unique_ptr<Subscriber> make_subscriber(ReaderContext& context, const SubscriberOptions& options);

[[nodiscard]] std::string proto_name(Proto proto);  // "sse", "ws"

// The subscriber path of `topic` in each protocol: /sse/{topic}, /ws/{topic}.
[[nodiscard]] std::string stream_path(Proto proto, std::string_view topic);

}  // namespace sluice::bench
