// Owns: SseSession, one Server-Sent Events connection at a time for
// SseClient: the request (with Last-Event-ID when resuming), the check of
// the response head, and the stream read through the EventSource parser
// into the inbox.
//
// The id to resume from never names an event that did not reach the inbox:
// one the client read but could not hand over (it was stopped while the
// inbox was full) is asked for again.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "driver.hpp"
#include "link.hpp"
#include "response_head.hpp"
#include "server_messages.hpp"
#include "sluice/client/url.hpp"
#include "proto/sse_parser.hpp"

namespace sluice::client::detail {

class SseSession final : public Session, private proto::sse::Handler {
 public:
  SseSession(const Url& url, std::string_view last_id, const ClientOptions& options);

  ClientError run(Driver& driver) override;
  // Any thread.
  [[nodiscard]] std::string last_id() const;

 private:
  ClientError open_stream(Link& link, Driver& driver);
  ClientError check_head(const ResponseHead& head, Driver& driver) const;
  ClientError pump(Link& link, Driver& driver);
  ClientError feed(std::string_view bytes);
  void build_request();
  void on_event(const proto::sse::ReceivedEvent& event) override;
  void on_retry(std::uint64_t retry_ms) override;
  void set_resume_id(std::string_view id);

  const Url url_;
  const std::string topic_;  // the stream's only topic, or empty
  proto::sse::Parser parser_;
  std::string request_;
  std::string head_;          // the response head, then the stream bytes that came with it
  std::vector<char> chunk_;   // one read from the socket
  Event scratch_;             // the event being handed over; swapped with the inbox's buffers
  ServerMessages notices_;    // reads a notice's JSON data
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
