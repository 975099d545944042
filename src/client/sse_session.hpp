// Owns: SseSession, one Server-Sent Events connection at a time for
// SseClient: the request (with Last-Event-ID when resuming), the check of
// the response head, and the stream read through the EventSource parser
// into the inbox. Over HTTP/1.1, or over HTTP/2 (sse_h2.cpp) when TLS
// negotiated h2 or the client was told the server speaks it (h2c).
//
// The id to resume from never names an event that did not reach the inbox:
// one the client read but could not hand over (it was stopped while the
// inbox was full) is asked for again.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "driver.hpp"
#include "h2_client_stream.hpp"
#include "link.hpp"
#include "response_head.hpp"
#include "server_messages.hpp"
#include "sluice/client/url.hpp"
#include "proto/sse_parser.hpp"
#include "transport/tls_context.hpp"

namespace sluice::client::detail {

class SseSession final : public Session, private proto::sse::Handler, private H2ClientStream::Body {
 public:
  // `tls` is the context for an https:// URL (empty otherwise).
  SseSession(const Url& url, std::string_view last_id, const ClientOptions& options, transport::TlsContext tls);

  ClientError run(Driver& driver) override;
  // Any thread.
  [[nodiscard]] std::string last_id() const;

 private:
  ClientError open_stream(Link& link, Driver& driver);
  ClientError check_head(const ResponseHead& head, Driver& driver) const;
  ClientError pump(Link& link, Driver& driver);
  ClientError feed(std::string_view bytes);
  void build_request();
  // HTTP/2 (sse_h2.cpp).
  [[nodiscard]] bool use_h2(const Link& link) const;
  ClientError open_h2(Link& link, Driver& driver);
  ClientError pump_h2(Link& link, Driver& driver);
  ClientError feed_h2(Link& link, std::string_view bytes);
  ClientError h2_ended() const;
  bool on_body(std::string_view bytes) override;
  void on_event(const proto::sse::ReceivedEvent& event) override;
  void on_retry(std::uint64_t retry_ms) override;
  void on_comment(std::string_view text) override;
  void set_resume_id(std::string_view id);

  const Url url_;
  const std::string topic_;  // the stream's only topic, or empty
  const transport::TlsContext tls_;
  const Http2 http2_;
  std::unique_ptr<H2ClientStream> h2_;  // the connection's HTTP/2 stream, when it speaks HTTP/2
  ClientError body_error_;              // what stopped an HTTP/2 body feed
  bool h2_open_ = false;                // the HTTP/2 response head was accepted
  proto::sse::Parser parser_;
  std::string request_;
  std::string token_;  // ClientOptions::token's, for this connection
  std::string head_;          // the response head, then the stream bytes that came with it
  std::vector<char> chunk_;   // one read from the socket
  Event scratch_;             // the event being handed over; swapped with the inbox's buffers
  ServerMessages notices_;    // reads a notice's JSON data
  static constexpr std::size_t kLastWordsBytes = 200;
  std::string last_words_;    // the last non-empty comment since the last event
  Driver* driver_ = nullptr;  // during run()
  bool cancelled_ = false;    // the inbox refused an event: the client is stopping

  mutable std::mutex id_mutex_;
  std::string resume_id_;
  std::string prior_id_;  // the one before: restored when a hand-over is refused
};

// The topic a stream URL subscribes to when it names exactly one
// (/sse/{topic}, or /sse?topic=t), percent-decoded; else empty.
[[nodiscard]] std::string single_topic(const Url& url);

}  // namespace sluice::client::detail
