// Owns: SseSubscriber, one Server-Sent Events subscriber of the bench client:
// it sends the GET, checks the response head strictly (200 and
// text/event-stream), then scans the stream, checking every event's
// publisher and sequence number (EventCheck: a skipped number is a lost
// event, counted as a gap) and sampling latency from the payload stamps. It runs on its thread's io::Loop and reads until EAGAIN
// (the loop is edge-triggered).
#pragma once

#include <cstdint>
#include <string>

#include "reader_context.hpp"
#include "subscriber.hpp"
#include "sse_scanner.hpp"
#include "stream_tally.hpp"

namespace sluice::bench {

class SseSubscriber final : public Subscriber, private SseHandler {
 public:
  SseSubscriber(ReaderContext& context, const SubscriberOptions& options);
  ~SseSubscriber() override;
  SseSubscriber(const SseSubscriber&) = delete;
  SseSubscriber& operator=(const SseSubscriber&) = delete;

  // Connects, sends the request and watches the socket. False (counted as
  // failed) when the connection was refused.
  bool start() override;

  [[nodiscard]] bool streaming() const { return state_ == State::streaming; }
  [[nodiscard]] bool done() const { return state_ == State::done; }
  [[nodiscard]] std::uint64_t events() const { return tally_.events; }
  [[nodiscard]] std::uint64_t first_event_ns() const { return tally_.first_event_ns; }
  [[nodiscard]] std::uint64_t last_event_ns() const { return tally_.last_event_ns; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] int fd() const { return fd_; }

 private:
  enum class State : std::uint8_t { head, streaming, done };

  void on_ready(std::uint32_t events) override;
  void on_event(const SseEvent& event) override;
  void on_comment(std::string_view text) override;
  bool read_some();
  void take(std::string_view bytes);
  void take_head(std::string_view bytes);
  void finish(std::string_view why, bool failed);

  ReaderContext& context_;
  SubscriberOptions options_;
  int fd_ = -1;
  Channel channel_;
  State state_ = State::head;
  std::string head_;
  SseScanner scanner_;
  std::string error_;
  std::uint64_t now_ = 0;  // read once per read(), shared by its events
  StreamTally tally_;
};

}  // namespace sluice::bench
