#include "beast_ws_subscriber.hpp"

namespace sluice::peers::beast_peer {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

WsSubscriber::WsSubscriber(asio::ip::tcp::socket socket, Hub& hub, std::string topic)
    : ws_(std::move(socket)), hub_(hub), topic_(std::move(topic)) {}

WsSubscriber::~WsSubscriber() { hub_.unsubscribe(topic_, this); }

void WsSubscriber::start(const beast::http::request<beast::http::string_body>& request) {
  ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    if (ec) return self->close();
    self->hub_.subscribe(self->topic_, self.get());
    self->read_more();
  });
}

void WsSubscriber::push(const EventPtr& event) {
  if (queue_.size() >= kMaxQueued) return close();
  queue_.push_back(event);
  if (!writing_) write_next();
}

void WsSubscriber::read_more() {
  ws_.async_read(incoming_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return self->close();
    self->incoming_.clear();
    self->read_more();
  });
}

void WsSubscriber::write_next() {
  if (queue_.empty() || closed_) return;
  writing_ = true;
  const EventPtr event = queue_.front();
  queue_.pop_front();
  ws_.text(event->text);
  // `event` rides in the handler, keeping its bytes alive until written.
  ws_.async_write(asio::buffer(event->payload), [self = shared_from_this(), event](beast::error_code ec, std::size_t) {
    self->writing_ = false;
    if (ec) return self->close();
    self->write_next();
  });
}

void WsSubscriber::close() {
  if (closed_) return;
  closed_ = true;
  hub_.unsubscribe(topic_, this);
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().close(ignored);
}

}  // namespace sluice::peers::beast_peer
