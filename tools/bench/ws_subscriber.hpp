// Owns: WsSubscriber, one WebSocket subscriber of the bench client: it sends
// the upgrade with a fresh key, checks the 101 strictly (ws_client.hpp),
// then scans the server's frames copy-free (WsFrameScanner), answers pings
// with masked pongs and a close with a close, checks every event's
// publisher and sequence number (EventCheck: skipped numbers are gaps,
// repeated ones order errors), and samples latency from the payload stamps. It runs on its thread's io::Loop
// and reads until EAGAIN (the loop is edge-triggered).
#pragma once

#include <cstdint>
#include <string>

#include "reader_context.hpp"
#include "stream_tally.hpp"
#include "subscriber.hpp"
#include "ws_frame_scanner.hpp"

namespace sluice::bench {

class WsSubscriber final : public Subscriber, private WsFrameHandler {
 public:
  WsSubscriber(ReaderContext& context, const SubscriberOptions& options);
  ~WsSubscriber() override;
  WsSubscriber(const WsSubscriber&) = delete;
  WsSubscriber& operator=(const WsSubscriber&) = delete;

  bool start() override;

  [[nodiscard]] bool streaming() const { return state_ == State::streaming; }
  [[nodiscard]] bool done() const { return state_ == State::done; }
  [[nodiscard]] std::uint64_t events() const { return tally_.events; }
  [[nodiscard]] std::uint64_t first_event_ns() const { return tally_.first_event_ns; }
  [[nodiscard]] std::uint64_t last_event_ns() const { return tally_.last_event_ns; }
  // The highest sequence number read from publisher `index`; 0 before its first.
  [[nodiscard]] std::uint64_t last_seq(std::uint32_t index) const { return tally_.check.last(index); }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] int fd() const { return fd_; }

 private:
  enum class State : std::uint8_t { head, streaming, done };

  void on_ready(std::uint32_t events) override;
  void on_message(bool text, std::string_view payload) override;
  void on_ping(std::string_view payload) override;
  void on_close(std::uint16_t code, std::string_view reason) override;
  bool read_some();
  void take(std::string_view bytes);
  void take_head(std::string_view bytes);
  void send_pending();
  void watch_writable(bool on);
  void finish(std::string_view why, bool failed);

  ReaderContext& context_;
  SubscriberOptions options_;
  int fd_ = -1;
  Channel channel_;
  State state_ = State::head;
  std::string key_;
  std::string head_;
  std::string pending_;  // pongs and the close answer not yet taken by the socket
  bool watching_writable_ = false;
  WsFrameScanner scanner_;
  StreamTally tally_;
  std::string error_;
  std::uint64_t now_ = 0;  // read once per read(), shared by its frames
};

}  // namespace sluice::bench
