// beast-peer: the equivalent of sluiced's SSE and WebSocket paths on
// Boost.Beast, written the way the Beast examples teach: one io_context on
// one thread (sluiced also serves from one thread), http::async_read for
// requests, websocket::stream for upgrades, and for each subscriber a queue
// of shared, once-encoded events. It offers sluiced's interface:
//   GET /sse/{topic}    event stream, each event "id: N\ndata: ...\n\n"
//   GET /ws/{topic}     WebSocket subscriber, each event one message (text
//                       unless a POST body is not UTF-8 or a publisher sent binary)
//   GET /pub/{topic}    WebSocket publisher: every message it sends is published
//   POST /pub/{topic}   body = data; replies {"topic":..,"id":"N","subscribers":K}
//   GET /healthz
// A subscriber more than kMaxQueued events behind is disconnected.
//
//   beast-peer --listen 127.0.0.1:0
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/detail/utf8_checker.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "beast_hub.hpp"
#include "beast_sse_subscriber.hpp"
#include "beast_ws_publisher.hpp"
#include "beast_ws_subscriber.hpp"
#include "peer_listen.hpp"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using namespace sluice::peers::beast_peer;

namespace {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, Hub& hub) : socket_(std::move(socket)), hub_(hub) {}

  void read() {
    request_ = {};
    http::async_read(socket_, buffer_, request_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (!ec) self->route();
    });
  }

 private:
  void route() {
    const std::string_view target(request_.target().data(), request_.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    const bool get = request_.method() == http::verb::get;
    if (get && websocket::is_upgrade(request_) && path.starts_with("/ws/")) {
      return std::make_shared<WsSubscriber>(std::move(socket_), hub_, std::string(path.substr(4)))->start(request_);
    }
    if (get && websocket::is_upgrade(request_) && path.starts_with("/pub/")) {
      return std::make_shared<WsPublisher>(std::move(socket_), hub_, std::string(path.substr(5)))->start(request_);
    }
    if (get && path.starts_with("/sse/")) {
      return std::make_shared<SseSubscriber>(std::move(socket_), hub_, std::string(path.substr(5)))->start();
    }
    if (request_.method() == http::verb::post && path.starts_with("/pub/")) return publish(std::string(path.substr(5)));
    if (path == "/healthz") return reply(http::status::ok, "text/plain", "ok\n");
    reply(http::status::not_found, "text/plain", "no such resource\n");
  }

  // Beast's own UTF-8 check (the one its reader applies to text messages)
  // decides whether a WebSocket subscriber gets the body as text.
  void publish(const std::string& topic) {
    const std::string& body = request_.body();
    const bool text = websocket::detail::check_utf8(body.data(), body.size());
    const auto [id, count] = hub_.publish(topic, body, text);
    reply(http::status::ok, "application/json",
          "{\"topic\":\"" + topic + "\",\"id\":\"" + std::to_string(id) + "\",\"subscribers\":" + std::to_string(count) +
              "}\n");
  }

  void reply(http::status status, const char* type, std::string body) {
    auto response = std::make_shared<http::response<http::string_body>>(status, request_.version());
    response->set(http::field::content_type, type);
    response->keep_alive(request_.keep_alive());
    response->body() = std::move(body);
    response->prepare_payload();
    http::async_write(socket_, *response, [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
      if (!ec && response->keep_alive()) self->read();
    });
  }

  tcp::socket socket_;
  Hub& hub_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
};

void accept_loop(tcp::acceptor& acceptor, Hub& hub) {
  acceptor.async_accept([&acceptor, &hub](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<HttpSession>(std::move(socket), hub)->read();
    }
    accept_loop(acceptor, hub);
  });
}

}  // namespace

int main(int argc, char** argv) {
  sluice::peers::ListenAddress where;
  if (!sluice::peers::parse_listen(argc, argv, where)) {
    std::fprintf(stderr, "usage: beast-peer [--listen HOST:PORT]\n");
    return 2;
  }
  asio::io_context io;
  tcp::acceptor acceptor(io);
  beast::error_code ec;
  const tcp::endpoint endpoint(where.host, where.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "beast-peer: cannot listen on %s:%u: %s\n", where.host.to_string().c_str(), where.port,
                 ec.message().c_str());
    return 1;
  }
  Hub hub;
  accept_loop(acceptor, hub);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](beast::error_code, int) { io.stop(); });
  std::printf("beast-peer listening on %s:%u\n", where.host.to_string().c_str(), acceptor.local_endpoint().port());
  std::fflush(stdout);
  io.run();
  return 0;
}
