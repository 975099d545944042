#include "ws_subscriber.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "stamp.hpp"
#include "ws_client.hpp"

namespace sluice::bench {

WsSubscriber::WsSubscriber(ReaderContext& context, const SubscriberOptions& options)
    : context_(context), options_(options), scanner_(std::size_t{64} << 20) {}

WsSubscriber::~WsSubscriber() {
  if (fd_ >= 0) {
    if (state_ != State::done) context_.loop.unwatch(fd_);
    ::close(fd_);
  }
}

bool WsSubscriber::start() {
  std::string request;
  if (!make_upgrade_request(options_.path, request, key_, options_.last_event_id)) {
    finish("no entropy for a key", true);
    return false;
  }
  std::string why;
  fd_ = open_stream(options_, request, channel_, segments_at_request_, why);
  if (fd_ >= 0 && context_.loop.watch(fd_, io::kReadable, this) != 0) why = "cannot watch the socket";
  if (!why.empty()) {
    finish(why, true);
    return false;
  }
  return true;
}

void WsSubscriber::on_ready(std::uint32_t events) {
  if ((events & io::kWritable) != 0) send_pending();
  while (state_ != State::done && read_some()) {
  }
}

bool WsSubscriber::read_some() {
  std::string_view bytes;
  switch (receive(context_, channel_, bytes, now_)) {
    case Received::bytes:
      take(bytes);
      return true;
    case Received::again:
      return false;
    case Received::eof:
      finish("server closed the connection without a close frame", true);
      return false;
    case Received::error:
      finish("read error", true);
      return false;
  }
  return false;
}

void WsSubscriber::take(std::string_view bytes) {
  if (state_ == State::head) return take_head(bytes);
  const std::uint64_t before = tally_.events;
  const WsScanStatus status = scanner_.feed(bytes, *this);
  context_.counters.add(context_.counters.events, tally_.events - before);
  if (status != WsScanStatus::ok && status != WsScanStatus::closed) {
    return finish(std::string("malformed frame: ") + scanner_.error(), true);
  }
  if (!pending_.empty()) send_pending();
}

void WsSubscriber::take_head(std::string_view bytes) {
  head_.append(bytes);
  ReplyHead head;
  const HeadStatus status = parse_reply_head(head_, head);
  if (status == HeadStatus::need_more) return;
  const std::string why = status == HeadStatus::error ? "malformed upgrade answer" : check_upgrade(head_, head, key_);
  if (!why.empty()) return finish(why, true);
  state_ = State::streaming;
  context_.mark_ready();
  const std::string rest = head_.substr(head.head_size);
  head_.clear();
  take(rest);
}

void WsSubscriber::on_message(bool, std::string_view payload) {
  if (state_ == State::done || tally_.take(context_, payload, now_)) return;
  // What `latest` replaced is counted, as the SSE reader counts its
  // comments: the gaps it tells of show in the tally. Any other notice (a
  // reset: a replay too old for the history, a stream lost) says the stream
  // cannot go on as asked, and ends it with the server's words.
  if (payload.starts_with("{\"sluice\":\"dropped\"")) return context_.counters.add(context_.counters.notices, 1);
  if (payload.starts_with("{\"sluice\":")) return finish("the server sent a notice: " + std::string(payload), true);
  finish("a message without the bench's publisher and sequence", true);
}

void WsSubscriber::on_ping(std::string_view payload) {
  if (!append_masked(pending_, proto::ws::Opcode::pong, payload)) finish("cannot mask a pong", true);
}

// The server ends the stream (a slow-consumer policy's 1008, or shutdown):
// answered with a close, counted as closed, not failed.
void WsSubscriber::on_close(std::uint16_t code, std::string_view) {
  const bool sent = code == 1005 ? append_masked(pending_, proto::ws::Opcode::close, {}) : append_close(pending_, code);
  send_pending();
  finish("server closed with " + std::to_string(code), !sent);
}

void WsSubscriber::send_pending() {
  while (!pending_.empty()) {
    const ssize_t n = channel_.write(pending_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return watch_writable(true);
    if (n < 0) return finish("write error", true);
    pending_.erase(0, static_cast<std::size_t>(n));
  }
  watch_writable(false);
}

void WsSubscriber::watch_writable(bool on) {
  if (on == watching_writable_ || state_ == State::done) return;
  watching_writable_ = on;
  context_.loop.rewatch(fd_, io::kReadable | (on ? io::kWritable : 0u), this);
}

void WsSubscriber::finish(std::string_view why, bool failed) {
  if (state_ == State::done) return;
  const bool before_head = state_ == State::head;
  state_ = State::done;
  error_.assign(why);
  context_.mark_finished(failed, before_head, tally_.gaps, tally_.events);
  if (fd_ >= 0) {
    context_.loop.unwatch(fd_);
    ::shutdown(fd_, SHUT_RDWR);
  }
}

}  // namespace sluice::bench
