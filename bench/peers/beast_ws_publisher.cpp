#include "beast_ws_publisher.hpp"

namespace sluice::peers::beast_peer {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

WsPublisher::WsPublisher(asio::ip::tcp::socket socket, Hub& hub, std::string topic)
    : ws_(std::move(socket)), hub_(hub), topic_(std::move(topic)) {}

void WsPublisher::start(const beast::http::request<beast::http::string_body>& request) {
  ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    if (!ec) self->read_more();
  });
}

void WsPublisher::read_more() {
  ws_.async_read(incoming_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return;
    self->hub_.publish(self->topic_, beast::buffers_to_string(self->incoming_.data()), self->ws_.got_text());
    self->incoming_.clear();
    self->read_more();
  });
}

}  // namespace sluice::peers::beast_peer
