// websocketpp-peer: the equivalent of sluiced's WebSocket path on
// websocketpp 0.8 (Debian's libwebsocketpp-dev, on Boost.Asio), written the
// way its broadcast_server example teaches: one server<config::asio> run on
// one thread, a set of connection handles per topic, handlers for open,
// close, message and plain HTTP. It offers:
//   GET /ws/{topic}    WebSocket subscriber: each event one text frame
//                      (binary when the body is not UTF-8) of exactly the
//                      published bytes
//   GET /pub/{topic}   WebSocket publisher: every message it sends is published
//   POST /pub/{topic}  body = one event; replies {"topic":..,"id":"N","subscribers":K}
//   GET /healthz
// Two things sluiced does are not possible here, both library limits:
// websocketpp answers a plain HTTP request with one whole response and then
// closes the connection (no keep-alive, so each POST costs a connection), and
// it cannot stream an HTTP response, so there is no SSE.
//
// A subscriber with more than kMaxBufferedBytes waiting in websocketpp's send
// queue is closed with 1008 (sluiced's default send budget and its fifo
// policy's close code); once closing, it takes no more events, so its queue
// stays bounded. Pings are answered by the library.
//
//   websocketpp-peer --listen 127.0.0.1:0
#include <csignal>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include <websocketpp/config/asio_no_tls.hpp>
#include <websocketpp/server.hpp>

#include "peer_listen.hpp"

namespace {

using Server = websocketpp::server<websocketpp::config::asio>;
using Message = websocketpp::config::asio::message_type;
using Handle = websocketpp::connection_hdl;
using Opcode = websocketpp::frame::opcode::value;

constexpr std::size_t kMaxBufferedBytes = 1 << 20;

// The topic in `resource` ("/ws/news?x" → "news") when it starts with `prefix`.
bool topic_of(std::string_view resource, std::string_view prefix, std::string& topic) {
  if (resource.compare(0, prefix.size(), prefix) != 0) return false;
  topic = resource.substr(prefix.size(), resource.find('?') - prefix.size());
  return !topic.empty();
}

class Peer {
 public:
  explicit Peer(Server& server) : server_(server) {
    server_.set_validate_handler([this](Handle h) { return validate(h); });
    server_.set_open_handler([this](Handle h) { on_open(h); });
    server_.set_close_handler([this](Handle h) { forget(h); });
    server_.set_fail_handler([this](Handle h) { forget(h); });
    server_.set_message_handler([this](Handle h, Server::message_ptr m) { on_message(h, m); });
    server_.set_http_handler([this](Handle h) { on_http(h); });
  }

 private:
  struct Topic {
    std::uint64_t next_id = 1;
    std::set<Handle, std::owner_less<Handle>> subscribers;
  };
  enum class Role { subscriber, publisher };
  struct Link {
    Role role;
    std::string topic;
  };

  // Accepts an upgrade only to /ws/{topic} or /pub/{topic}.
  bool validate(Handle h) {
    const std::string& resource = server_.get_con_from_hdl(h)->get_resource();
    std::string topic;
    if (topic_of(resource, "/ws/", topic)) links_[h] = {Role::subscriber, topic};
    else if (topic_of(resource, "/pub/", topic)) links_[h] = {Role::publisher, topic};
    else return false;
    return true;
  }

  void on_open(Handle h) {
    const Link& link = links_[h];
    if (link.role == Role::subscriber) topics_[link.topic].subscribers.insert(h);
  }

  void forget(Handle h) {
    const auto it = links_.find(h);
    if (it == links_.end()) return;
    if (it->second.role == Role::subscriber) topics_[it->second.topic].subscribers.erase(h);
    links_.erase(it);
  }

  // A subscriber's messages are ignored; a publisher's are published.
  void on_message(Handle h, const Server::message_ptr& m) {
    const auto it = links_.find(h);
    if (it != links_.end() && it->second.role == Role::publisher) publish(it->second.topic, m->get_payload());
  }

  void on_http(Handle h) {
    const Server::connection_ptr con = server_.get_con_from_hdl(h);
    const std::string& method = con->get_request().get_method();
    std::string topic;
    if (method == "POST" && topic_of(con->get_resource(), "/pub/", topic)) {
      const auto [id, count] = publish(topic, con->get_request_body());
      return reply(con, websocketpp::http::status_code::ok, "application/json",
                   "{\"topic\":\"" + topic + "\",\"id\":\"" + std::to_string(id) + "\",\"subscribers\":" +
                       std::to_string(count) + "}\n");
    }
    if (con->get_resource() == "/healthz") return reply(con, websocketpp::http::status_code::ok, "text/plain", "ok\n");
    reply(con, websocketpp::http::status_code::not_found, "text/plain", "no such resource\n");
  }

  static void reply(const Server::connection_ptr& con, websocketpp::http::status_code::value status,
                    const char* type, const std::string& body) {
    con->set_status(status);
    con->replace_header("Content-Type", type);
    con->set_body(body);
  }

  std::pair<std::uint64_t, std::size_t> publish(const std::string& name, const std::string& payload) {
    Topic& topic = topics_[name];
    const std::uint64_t id = topic.next_id++;
    const Server::message_ptr frame = encode(payload);
    std::size_t sent = 0;
    for (const Handle& h : topic.subscribers) sent += send(h, frame) ? 1 : 0;
    return {id, sent};
  }

  // The frame is built once and the same message goes to every subscriber.
  // websocketpp's send() would copy an unprepared message into a new frame
  // per connection; a server's frames are unmasked and this server offers
  // no compression, so one prepared frame is valid on every connection.
  Server::message_ptr encode(const std::string& payload) {
    const Opcode op = websocketpp::utf8_validator::validate(payload) ? Opcode::text : Opcode::binary;
    Server::message_ptr m = messages_->get_message(op, payload.size());
    m->set_payload(payload);
    const websocketpp::frame::basic_header head(op, payload.size(), true, false);
    m->set_header(websocketpp::frame::prepare_header(head, websocketpp::frame::extended_header(payload.size())));
    m->set_prepared(true);
    return m;
  }

  bool send(const Handle& h, const Server::message_ptr& frame) {
    websocketpp::lib::error_code ec;
    const Server::connection_ptr con = server_.get_con_from_hdl(h, ec);
    if (ec) return false;
    if (con->get_buffered_amount() > kMaxBufferedBytes) {
      con->close(websocketpp::close::status::policy_violation, "too slow", ec);
      return false;
    }
    return !con->send(frame);
  }

  Server& server_;
  websocketpp::message_buffer::alloc::con_msg_manager<Message>::ptr messages_ =
      std::make_shared<websocketpp::message_buffer::alloc::con_msg_manager<Message>>();
  std::map<std::string, Topic, std::less<>> topics_;
  std::map<Handle, Link, std::owner_less<Handle>> links_;
};

}  // namespace

int main(int argc, char** argv) {
  sluice::peers::ListenAddress where;
  if (!sluice::peers::parse_listen(argc, argv, where)) {
    std::fprintf(stderr, "usage: websocketpp-peer [--listen HOST:PORT]\n");
    return 2;
  }
  Server server;
  server.clear_access_channels(websocketpp::log::alevel::all);
  server.clear_error_channels(websocketpp::log::elevel::all);
  server.init_asio();
  server.set_reuse_addr(true);
  server.set_tcp_post_init_handler([&server](Handle h) {
    boost::system::error_code ignored;
    server.get_con_from_hdl(h)->get_raw_socket().set_option(boost::asio::ip::tcp::no_delay(true), ignored);
  });
  Peer peer(server);
  websocketpp::lib::error_code ec;
  server.listen(boost::asio::ip::tcp::endpoint(where.host, where.port), ec);
  if (!ec) server.start_accept(ec);
  if (ec) {
    std::fprintf(stderr, "websocketpp-peer: cannot listen on %s:%u: %s\n", where.host.to_string().c_str(), where.port,
                 ec.message().c_str());
    return 1;
  }
  boost::asio::signal_set signals(server.get_io_service(), SIGINT, SIGTERM);
  signals.async_wait([&server](const boost::system::error_code&, int) { server.stop(); });
  boost::system::error_code asio_ec;
  std::printf("websocketpp-peer listening on %s:%u\n", where.host.to_string().c_str(),
              server.get_local_endpoint(asio_ec).port());
  std::fflush(stdout);
  server.run();
  return 0;
}
