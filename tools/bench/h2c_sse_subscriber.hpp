// Owns: H2cSseSubscriber, one HTTP/2 connection of the bench client
// carrying K Server-Sent Events streams (h2c by prior knowledge, or h2
// chosen by ALPN over TLS; H2cStream): each stream is scanned and every event checked like an
// HTTP/1.1 SseSubscriber's (its own SseScanner and StreamTally: a skipped
// sequence number on any stream is a gap). The connection is one session
// of the pool: it is ready once every stream was answered 200, and it
// finishes when the server ends every stream or the connection. Each
// stream the server ends counts as a closed stream when it ends, as an
// HTTP/1.1 subscriber's would, so that a cut-off shows per stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "h2c_stream.hpp"
#include "reader_context.hpp"
#include "sse_scanner.hpp"
#include "stream_tally.hpp"
#include "subscriber.hpp"

namespace sluice::bench {

class H2cSseSubscriber final : public Subscriber, private H2cStream::Sink {
 public:
  H2cSseSubscriber(ReaderContext& context, const SubscriberOptions& options);
  ~H2cSseSubscriber() override;
  H2cSseSubscriber(const H2cSseSubscriber&) = delete;
  H2cSseSubscriber& operator=(const H2cSseSubscriber&) = delete;

  bool start() override;
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  // One stream's scanner and tally; the SseHandler its scanner calls.
  struct Stream final : SseHandler {
    explicit Stream(H2cSseSubscriber& of) : owner(of), scanner(std::size_t{1} << 20, false) {}
    void on_event(const SseEvent& event) override;
    void on_comment(std::string_view text) override;
    H2cSseSubscriber& owner;
    SseScanner scanner;
    StreamTally tally;
    bool head = false;
    bool ended = false;
  };

  void on_ready(std::uint32_t events) override;
  void on_head(std::size_t index) override;
  void on_data(std::size_t index, std::string_view data) override;
  void on_end(std::size_t index) override;
  bool read_some();
  void end_stream(Stream& stream);
  void finish(std::string_view why, bool failed);
  [[nodiscard]] std::uint64_t gaps() const;

  ReaderContext& context_;
  SubscriberOptions options_;
  int fd_ = -1;
  Channel channel_;
  H2cStream h2_;
  std::vector<Stream> streams_;
  std::size_t heads_ = 0;
  bool ready_ = false;
  bool done_ = false;
  std::string error_;
  std::string replies_;  // acknowledgements and window updates to write
  std::uint64_t now_ = 0;
};

}  // namespace sluice::bench
