#include "sse_subscriber.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include "http_reply.hpp"
#include "net.hpp"
#include "stamp.hpp"

namespace sluice::bench {

SseSubscriber::SseSubscriber(ReaderContext& context, const SubscriberOptions& options)
    : context_(context), options_(options), scanner_(std::size_t{1} << 20, false) {}

SseSubscriber::~SseSubscriber() {
  if (fd_ >= 0) {
    context_.loop.unwatch(fd_);
    ::close(fd_);
  }
}

bool SseSubscriber::start() {
  const std::string request = "GET " + options_.path +
                              " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";
  std::string why;
  fd_ = open_stream(options_, request, channel_, segments_at_request_, why);
  if (fd_ >= 0 && context_.loop.watch(fd_, io::kReadable, this) != 0) why = "cannot watch the socket";
  if (!why.empty()) {
    finish(why, true);
    return false;
  }
  return true;
}

void SseSubscriber::on_ready(std::uint32_t) {
  while (state_ != State::done && read_some()) {
  }
}

bool SseSubscriber::read_some() {
  std::string_view bytes;
  switch (receive(context_, channel_, bytes, now_)) {
    case Received::bytes:
      take(bytes);
      return true;
    case Received::again:
      return false;
    case Received::eof:
      finish("server closed the stream", state_ == State::head);
      return false;
    case Received::error:
      finish("read error", state_ == State::head);
      return false;
  }
  return false;
}

void SseSubscriber::take(std::string_view bytes) {
  if (state_ == State::head) return take_head(bytes);
  const std::uint64_t before = tally_.events;
  if (scanner_.feed(bytes, *this) != ScanStatus::ok) finish("malformed stream: " + scanner_.bad_line(), true);
  context_.counters.add(context_.counters.events, tally_.events - before);
}

void SseSubscriber::take_head(std::string_view bytes) {
  head_.append(bytes);
  ReplyHead head;
  const HeadStatus status = parse_reply_head(head_, head);
  if (status == HeadStatus::need_more) return;
  if (status == HeadStatus::error || head.status != 200 || !head.content_type.starts_with("text/event-stream")) {
    return finish("bad stream head: " + head_.substr(0, head_.find('\r')), true);
  }
  state_ = State::streaming;
  context_.mark_ready();
  const std::string rest = head_.substr(head.head_size);
  head_.clear();
  take(rest);
}

// Order and loss are read from the payload's publisher and sequence
// (EventCheck), not from the ids: every server numbers the bench's payloads
// the same way, while ids differ (sluiced's "EPOCH:SEQ", Nchan's
// "TIME:TAG", none from the speed-of-light server).
void SseSubscriber::on_event(const SseEvent& event) {
  if (state_ == State::done) return;
  // An event that is not the bench's is counted, unchecked.
  if (!tally_.take(context_, event.data, now_)) ++tally_.events;
}

void SseSubscriber::on_comment(std::string_view) { context_.counters.add(context_.counters.notices, 1); }

void SseSubscriber::finish(std::string_view why, bool failed) {
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
