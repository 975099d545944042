// Owns: HttpSession, one client connection speaking HTTP/1.1: it reads
// requests (keep-alive and pipelined), answers publish and health requests,
// and turns into an SSE stream on GET /sse.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sluice/conn/connection.hpp"
#include "sluice/conn/policy.hpp"
#include "sluice/hub/hub.hpp"
#include "sluice/proto/http1.hpp"
#include "sluice/server/response.hpp"

namespace sluice::server {

class Worker;

class HttpSession final : public conn::Connection, public hub::Subscriber {
 public:
  enum class State : std::uint8_t { request, sse };

  HttpSession(Worker& worker, int fd);
  ~HttpSession() override;

  // Called by the worker's sweep: applies the handshake, idle and linger
  // timeouts.
  void check_timeouts(io::Loop::Clock::time_point now);

  [[nodiscard]] State state() const { return state_; }
  std::size_t index = 0;  // position in the worker's session list

 private:
  void on_input(std::string& input) override;
  void on_closed(conn::CloseReason reason) override;
  void on_drained() override;
  void before_flush() override;
  void cut_off();
  bool queue_drop_notices();
  bool replies_full() const;
  void deliver(const hub::Delivery& delivery) override;

  bool handle_one(std::string& input);
  void handle_request(const proto::http1::Request& request);
  void respond(Response response);
  void method_not_allowed(std::string_view allow);
  void fail(int status);
  void publish(const proto::http1::Request& request, std::string_view topic);
  void start_sse(const proto::http1::Request& request, std::string_view path_topic);
  bool join(std::string_view raw_topic, std::optional<conn::Policy> requested);
  void leave_all();

  Worker& worker_;
  proto::http1::RequestParser parser_;
  State state_ = State::request;
  bool keep_alive_ = true;
  bool served_any_ = false;  // until the first request, the handshake timeout applies
  bool partial_ = false;     // part of a request is buffered
  io::Loop::Clock::time_point request_started_;
  // One entry per topic this stream follows; a topic's index is the cookie
  // the hub hands back and the FrameTag::topic of its queued events.
  std::vector<std::string> topics_;
  std::vector<conn::Policy> policies_;
  std::vector<conn::DropRecord> drops_;
  bool drops_pending_ = false;
};

}  // namespace sluice::server
