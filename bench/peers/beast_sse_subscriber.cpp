#include "beast_sse_subscriber.hpp"

namespace sluice::peers::beast_peer {

namespace asio = boost::asio;
namespace beast = boost::beast;

SseSubscriber::SseSubscriber(asio::ip::tcp::socket socket, Hub& hub, std::string topic)
    : socket_(std::move(socket)), hub_(hub), topic_(std::move(topic)) {}

SseSubscriber::~SseSubscriber() { hub_.unsubscribe(topic_, this); }

void SseSubscriber::start() {
  hub_.subscribe(topic_, this);
  // The response head rides the queue as the first "event".
  queue_.push_back(std::make_shared<const Event>(
      Event{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n", {}, true}));
  write_more();
  watch_close();
}

void SseSubscriber::push(const EventPtr& event) {
  if (queue_.size() >= kMaxQueued) return close();
  queue_.push_back(event);
  if (!writing_) write_more();
}

void SseSubscriber::write_more() {
  if (queue_.empty() || closed_) return;
  writing_ = true;
  in_flight_.assign(queue_.begin(), queue_.end());
  queue_.clear();
  buffers_.clear();
  for (const EventPtr& e : in_flight_) buffers_.emplace_back(e->sse.data(), e->sse.size());
  asio::async_write(socket_, buffers_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    self->writing_ = false;
    if (ec) return self->close();
    self->write_more();
  });
}

void SseSubscriber::watch_close() {
  socket_.async_wait(asio::ip::tcp::socket::wait_read, [self = shared_from_this()](beast::error_code) { self->close(); });
}

void SseSubscriber::close() {
  if (closed_) return;
  closed_ = true;
  hub_.unsubscribe(topic_, this);
  beast::error_code ignored;
  socket_.close(ignored);
}

}  // namespace sluice::peers::beast_peer
