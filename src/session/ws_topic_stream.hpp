// Owns: WsTopicStream, a WebSocket on /ws/{topic}: the topic's events as
// messages (text when the data is UTF-8, binary otherwise), notices as
// {"sluice":KIND,...} text messages, and every message the client sends
// published to the same topic (the application's authorizer asked at the
// first one).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "session/held_access_line.hpp"
#include "session/subscriptions.hpp"
#include "session/topic_publisher.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

class WsTopicStream final : public WsStream, private Subscriptions::Owner, private TopicPublisher::Owner {
 public:
  WsTopicStream(const WsSetup& setup, std::string topic);

  // Joins the topic under `policy` (the server's for it when none was
  // asked for), replaying what came after `last_id` when given; a
  // topic that cannot be joined closes the stream (1008).
  //
  // With a broker, a client with no id of a topic this node has not placed
  // yet is owed what is published after the place, and its answer (the
  // 101; over HTTP/2 the 200) is what tells it it follows the topic:
  // nothing is written, the answer included, and nothing read until the
  // topic is placed (placed()). Past broker.placement_timeout_ms (Redis
  // unreachable) the 101 goes with a 1013 close saying why; over HTTP/2,
  // where the stream has had no answer yet, it is answered 503 instead.
  // A stream that ends before (a refusal, expired credentials, the server
  // stopping) is answered with its close behind.
  void open(std::string_view last_id, std::optional<Policy> policy);
  // The stream only reads: a message from its client closes it (1008)
  // instead of being published. For a page on another origin that may
  // read but not write (shared_routes.hpp, origin_reads_only()).
  void read_only() { read_only_ = true; }

  // True while the answer waits for the topic's place.
  [[nodiscard]] bool answer_held() const { return awaiting_; }
  // Over HTTP/1.1, the request's access-log line while its 101 is held:
  // written with 101 when the 101 goes (placed, or with the close that
  // ends the stream), 499 when the connection closes before.
  HeldAccessLine& access_line() { return access_line_; }

  void before_flush() override { subscriptions_.before_flush(); }
  conn::FlushResult write_queued(conn::Writer& writer, conn::OutQueue& queue, conn::DataAllowance allowance) override;
  void on_drained() override { subscriptions_.on_drained(); }
  void on_flushed() override { subscriptions_.on_flushed(); }
  [[nodiscard]] View view() const override { return {"ws", subscriptions_.topics()}; }

 private:
  void on_message(proto::ws::Opcode opcode, std::span<const char> payload) override;
  [[nodiscard]] bool input_held() const override { return awaiting_ || (publisher_ && publisher_->holding()); }
  void placed(std::uint32_t cookie, std::uint64_t epoch, std::uint64_t newest) override;
  void sweep_waits(io::Loop::Clock::time_point now) override;
  void on_close_sent() override;
  void let_go() override;
  void cut_off() override;
  bool append_notice(buf::FrameBuilder& out, std::string_view kind, std::string_view json_fields) override;
  void publish_refused(hub::HubStatus status) override;
  void publish_failed(std::string_view reason) override;
  void hold_refused(buf::Growth growth) override { refuse_for_memory(growth); }
  // Over HTTP/2, sends the 200 (once); over HTTP/1.1 the 101 is queued
  // already.
  void answer();

  const std::string topic_;
  Subscriptions subscriptions_;
  // Made when the authorizer first allows this stream to publish: most
  // topic streams only read, and an idle one should not carry a publisher.
  std::unique_ptr<TopicPublisher> publisher_;
  // Over HTTP/2, the stream's HEADERS until they go; null once sent, and
  // over HTTP/1.1.
  HeldResponse* response_;
  bool awaiting_ = false;  // the answer waits for placed()
  bool read_only_ = false;
  HeldAccessLine access_line_;  // none held: nothing to log, or logged when routed
  io::Loop::Clock::time_point awaiting_since_{};
};

}  // namespace sluice::session
