// Owns: WsSubscriber, one GET /ws/{topic} WebSocket of the Beast peer. A
// websocket::stream allows one outstanding write, so events wait in a queue
// and leave one async_write per message, each from the shared event;
// disconnected past kMaxQueued. A read is always pending, so that Beast
// answers pings and close frames; the client's own messages are ignored.
#pragma once

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <memory>
#include <string>

#include "beast_hub.hpp"

namespace sluice::peers::beast_peer {

class WsSubscriber : public Subscriber, public std::enable_shared_from_this<WsSubscriber> {
 public:
  WsSubscriber(boost::asio::ip::tcp::socket socket, Hub& hub, std::string topic);
  ~WsSubscriber() override;

  // Completes the upgrade `request` asked for, then joins the topic.
  void start(const boost::beast::http::request<boost::beast::http::string_body>& request);
  void push(const EventPtr& event) override;

 private:
  void read_more();
  void write_next();
  void close();

  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
  Hub& hub_;
  std::string topic_;
  boost::beast::flat_buffer incoming_;
  std::deque<EventPtr> queue_;
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace sluice::peers::beast_peer
