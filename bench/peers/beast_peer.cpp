// beast-peer: the equivalent of sluiced's SSE path on Boost.Beast, written
// the way the Beast examples teach: one io_context on one thread (sluiced
// also serves from one thread), http::async_read for requests, and for each
// subscriber a queue of shared, once-encoded events sent with one gathered
// async_write per batch. It offers exactly sluiced's interface:
//   GET /sse/{topic}    event stream, each event "id: N\ndata: ...\n\n"
//   POST /pub/{topic}   body = data; replies {"topic":..,"id":"N","subscribers":K}
//   GET /healthz
// A subscriber more than kMaxQueued events behind is disconnected, as
// sluiced's default policy does with its send budget.
//
//   beast-peer --listen 127.0.0.1:0
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kMaxQueued = 4096;
using Event = std::shared_ptr<const std::string>;

class Subscriber;

// Topics and their subscribers; touched only from the one io_context thread.
struct Hub {
  struct Topic {
    std::uint64_t next_id = 1;
    std::set<Subscriber*> subscribers;
  };
  std::map<std::string, Topic, std::less<>> topics;

  std::pair<std::uint64_t, std::size_t> publish(const std::string& topic, std::string_view data);
};

class Subscriber : public std::enable_shared_from_this<Subscriber> {
 public:
  Subscriber(tcp::socket socket, Hub& hub, std::string topic)
      : socket_(std::move(socket)), hub_(hub), topic_(std::move(topic)) {}
  ~Subscriber() { hub_.topics[topic_].subscribers.erase(this); }

  void start() {
    hub_.topics[topic_].subscribers.insert(this);
    queue_.push_back(std::make_shared<const std::string>(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"));
    write_more();
    watch_close();
  }

  void push(const Event& event) {
    if (queue_.size() >= kMaxQueued) return close();
    queue_.push_back(event);
    if (!writing_) write_more();
  }

 private:
  // Everything queued goes in one gathered write, as sluiced's writev.
  void write_more() {
    if (queue_.empty() || closed_) return;
    writing_ = true;
    in_flight_.assign(queue_.begin(), queue_.end());
    queue_.clear();
    buffers_.clear();
    for (const Event& e : in_flight_) buffers_.emplace_back(e->data(), e->size());
    asio::async_write(socket_, buffers_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->writing_ = false;
      if (ec) return self->close();
      self->write_more();
    });
  }

  void watch_close() {
    socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code) { self->close(); });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    hub_.topics[topic_].subscribers.erase(this);
    beast::error_code ignored;
    socket_.close(ignored);
  }

  tcp::socket socket_;
  Hub& hub_;
  std::string topic_;
  std::deque<Event> queue_;
  std::vector<Event> in_flight_;
  std::vector<asio::const_buffer> buffers_;
  bool writing_ = false;
  bool closed_ = false;
};

std::pair<std::uint64_t, std::size_t> Hub::publish(const std::string& name, std::string_view data) {
  Topic& topic = topics[name];
  const std::uint64_t id = topic.next_id++;
  auto event = std::make_shared<const std::string>("id: " + std::to_string(id) + "\ndata: " + std::string(data) + "\n\n");
  const std::vector<Subscriber*> targets(topic.subscribers.begin(), topic.subscribers.end());
  for (Subscriber* s : targets) s->push(event);
  return {id, targets.size()};
}

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
    if (request_.method() == http::verb::get && path.starts_with("/sse/")) {
      return std::make_shared<Subscriber>(std::move(socket_), hub_, std::string(path.substr(5)))->start();
    }
    if (request_.method() == http::verb::post && path.starts_with("/pub/")) {
      const std::string topic(path.substr(5));
      const auto [id, count] = hub_.publish(topic, request_.body());
      return reply(http::status::ok, "application/json",
                   "{\"topic\":\"" + topic + "\",\"id\":\"" + std::to_string(id) + "\",\"subscribers\":" +
                       std::to_string(count) + "}\n");
    }
    if (path == "/healthz") return reply(http::status::ok, "text/plain", "ok\n");
    reply(http::status::not_found, "text/plain", "no such resource\n");
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
  std::string listen = argc == 3 && std::string_view(argv[1]) == "--listen" ? argv[2] : "127.0.0.1:8080";
  const std::size_t colon = listen.rfind(':');
  asio::io_context io;
  tcp::acceptor acceptor(io, {asio::ip::make_address(listen.substr(0, colon)),
                              static_cast<unsigned short>(std::stoi(listen.substr(colon + 1)))});
  Hub hub;
  accept_loop(acceptor, hub);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](beast::error_code, int) { io.stop(); });
  std::printf("beast-peer listening on %s:%u\n", listen.substr(0, colon).c_str(), acceptor.local_endpoint().port());
  std::fflush(stdout);
  io.run();
  return 0;
}
