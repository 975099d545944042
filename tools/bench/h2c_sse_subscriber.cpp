#include "h2c_sse_subscriber.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "net.hpp"

namespace sluice::bench {

H2cSseSubscriber::H2cSseSubscriber(ReaderContext& context, const SubscriberOptions& options)
    : context_(context), options_(options), h2_(options.h2_streams) {
  streams_.reserve(options.h2_streams);
  for (std::size_t i = 0; i < options.h2_streams; ++i) streams_.emplace_back(*this);
}

H2cSseSubscriber::~H2cSseSubscriber() {
  if (fd_ >= 0) {
    context_.loop.unwatch(fd_);
    ::close(fd_);
  }
}

bool H2cSseSubscriber::start() {
  std::string why;
  fd_ = open_stream(options_, H2cStream::open(options_.path, streams_.size(), options_.tls != nullptr), channel_, segments_at_request_, why);
  if (fd_ >= 0 && context_.loop.watch(fd_, io::kReadable, this) != 0) why = "cannot watch the socket";
  if (!why.empty()) {
    finish(why, true);
    return false;
  }
  return true;
}

void H2cSseSubscriber::on_ready(std::uint32_t) {
  while (!done_ && read_some()) {
  }
}

bool H2cSseSubscriber::read_some() {
  std::string_view bytes;
  switch (receive(context_, channel_, bytes, now_)) {
    case Received::bytes: {
      std::uint64_t before = 0;
      for (const Stream& s : streams_) before += s.tally.events;
      if (!h2_.feed(bytes, *this, replies_)) {
        finish(h2_.error(), !ready_);
        return false;
      }
      std::uint64_t after = 0;
      for (const Stream& s : streams_) after += s.tally.events;
      context_.counters.add(context_.counters.events, after - before);
      // The replies are a few small frames now and then: written whole,
      // blocking for the rare moment the socket's buffer is full.
      if (!replies_.empty()) {
        if (io::set_nonblocking(fd_, false) != 0 || !channel_.write_all(replies_) ||
            io::set_nonblocking(fd_, true) != 0) {
          finish("cannot write to the connection", !ready_);
          return false;
        }
        replies_.clear();
      }
      if (h2_.ended()) {
        finish("server ended the streams", !ready_);
        return false;
      }
      return !done_;
    }
    case Received::again:
      return false;
    case Received::eof:
      finish("server closed the connection", !ready_);
      return false;
    case Received::error:
      finish("read error", !ready_);
      return false;
  }
  return false;
}

void H2cSseSubscriber::on_head(std::size_t index) {
  if (streams_[index].head) return;
  streams_[index].head = true;
  if (++heads_ == streams_.size() && !ready_) {
    ready_ = true;
    context_.mark_ready();
  }
}

void H2cSseSubscriber::on_data(std::size_t index, std::string_view data) {
  Stream& s = streams_[index];
  if (done_) return;
  if (s.scanner.feed(data, s) != ScanStatus::ok) finish("malformed stream: " + s.scanner.bad_line(), true);
}

void H2cSseSubscriber::on_end(std::size_t index) {
  if (!done_) end_stream(streams_[index]);
}

void H2cSseSubscriber::end_stream(Stream& stream) {
  if (stream.ended) return;
  stream.ended = true;
  context_.mark_stream_ended(stream.tally.gaps != 0, stream.tally.events);
}

// Order and loss are read from the payload (EventCheck), as over HTTP/1.1.
void H2cSseSubscriber::Stream::on_event(const SseEvent& event) {
  if (owner.done_) return;
  if (!tally.take(owner.context_, event.data, owner.now_)) ++tally.events;
}

void H2cSseSubscriber::Stream::on_comment(std::string_view) {
  owner.context_.counters.add(owner.context_.counters.notices, 1);
}

std::uint64_t H2cSseSubscriber::gaps() const {
  std::uint64_t n = 0;
  for (const Stream& s : streams_) n += s.tally.gaps;
  return n;
}

void H2cSseSubscriber::finish(std::string_view why, bool failed) {
  if (done_) return;
  error_.assign(why);
  if (failed) {
    std::uint64_t events = 0;
    for (const Stream& s : streams_) events += s.tally.events;
    context_.mark_finished(true, !ready_, gaps(), events);
  } else {
    // The server ended the connection: every stream still open ends with it.
    for (Stream& s : streams_) end_stream(s);
  }
  done_ = true;
  if (fd_ >= 0) {
    context_.loop.unwatch(fd_);
    ::shutdown(fd_, SHUT_RDWR);
  }
}

}  // namespace sluice::bench
