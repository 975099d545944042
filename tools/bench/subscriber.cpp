#include "subscriber.hpp"

#include <sys/socket.h>

#include <unistd.h>

#include <cerrno>

#include "clock.hpp"
#include "h2c_sse_subscriber.hpp"
#include "net.hpp"
#include "sse_subscriber.hpp"
#include "ws_subscriber.hpp"

namespace sluice::bench {

Received receive(ReaderContext& context, Channel& channel, std::string_view& bytes, std::uint64_t& now) {
  for (;;) {
    const ssize_t n = channel.read(context.buffer.data(), context.buffer.size());
    if (n > 0) {
      now = now_ns();
      context.counters.add(context.counters.bytes, static_cast<std::uint64_t>(n));
      bytes = std::string_view(context.buffer.data(), static_cast<std::size_t>(n));
      return Received::bytes;
    }
    if (n == 0) return Received::eof;
    if (errno == EINTR) continue;
    return errno == EAGAIN ? Received::again : Received::error;
  }
}

int open_stream(const SubscriberOptions& options, std::string_view request, Channel& channel,
                std::uint64_t& segments_at_request, std::string& why) {
  const int fd = dial(options.server, options.receive_buffer, options.source);
  if (fd < 0) {
    why = "cannot connect";
    return -1;
  }
  why = channel.open(fd, options.tls.get(), options.h2_streams > 0 ? HttpVersion::h2 : HttpVersion::http1);
  segments_at_request = segments_in(fd);
  if (why.empty() && !channel.write_all(request)) why = "cannot send the request";
  if (why.empty() && io::set_nonblocking(fd, true) != 0) why = "cannot make the socket non-blocking";
  if (why.empty()) return fd;
  ::close(fd);
  return -1;
}

std::unique_ptr<Subscriber> make_subscriber(ReaderContext& context, const SubscriberOptions& options) {
  if (options.proto == Proto::ws) return std::make_unique<WsSubscriber>(context, options);
  if (options.h2_streams > 0) return std::make_unique<H2cSseSubscriber>(context, options);
  return std::make_unique<SseSubscriber>(context, options);
}

std::string proto_name(Proto proto) { return proto == Proto::ws ? "ws" : "sse"; }

std::string stream_path(Proto proto, std::string_view topic) {
  return std::string(proto == Proto::ws ? "/ws/" : "/sse/") + std::string(topic);
}

}  // namespace sluice::bench
