// Owns: SseSubscriber, one GET /sse/{topic} stream of the Beast peer: a queue
// of shared events sent with one gathered async_write of everything queued,
// as sluiced's writev; disconnected past kMaxQueued.
#pragma once

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including it.
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "beast_hub.hpp"

namespace sluice::peers::beast_peer {

class SseSubscriber : public Subscriber, public std::enable_shared_from_this<SseSubscriber> {
 public:
  SseSubscriber(boost::asio::ip::tcp::socket socket, Hub& hub, std::string topic);
  ~SseSubscriber() override;

  // Sends the response head, joins the topic and watches for the client leaving.
  void start();
  void push(const EventPtr& event) override;

 private:
  void write_more();
  void watch_close();
  void close();

  boost::asio::ip::tcp::socket socket_;
  Hub& hub_;
  std::string topic_;
  std::deque<EventPtr> queue_;
  std::vector<EventPtr> in_flight_;
  std::vector<boost::asio::const_buffer> buffers_;
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace sluice::peers::beast_peer
