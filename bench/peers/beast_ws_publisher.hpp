// Owns: WsPublisher, one GET /pub/{topic} WebSocket of the Beast peer: every
// message it receives, text or binary, is published on the topic as it is.
#pragma once

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <memory>
#include <string>

#include "beast_hub.hpp"

namespace sluice::peers::beast_peer {

class WsPublisher : public std::enable_shared_from_this<WsPublisher> {
 public:
  WsPublisher(boost::asio::ip::tcp::socket socket, Hub& hub, std::string topic);

  // Completes the upgrade `request` asked for, then reads messages.
  void start(const boost::beast::http::request<boost::beast::http::string_body>& request);

 private:
  void read_more();

  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
  Hub& hub_;
  std::string topic_;
  boost::beast::flat_buffer incoming_;
};

}  // namespace sluice::peers::beast_peer
