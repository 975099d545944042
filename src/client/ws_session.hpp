// Owns: WsSession, one WebSocket connection at a time for WsClient: the
// opening handshake, then a loop that reads frames into events, answers
// pings, and writes the application's requests, all on the client's thread.
//
// The outgoing buffer holds pongs, close frames and requests; requests are
// taken from the application only while it is nearly empty, so it stays
// within about queue_bytes, and a server that stops reading is dropped
// once the buffer passes that bound.
//
// A /ws connection with a token source (ClientOptions::token) presents a
// new token before the one it opened with expires ({"op":"refresh"}), so
// the server never closes it 4401 while the source keeps up.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "driver.hpp"
#include "link.hpp"
#include "response_head.hpp"
#include "server_messages.hpp"
#include "sluice/client/url.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_handshake.hpp"
#include "transport/tls_context.hpp"
#include "ws_protocol.hpp"
#include "ws_requests.hpp"
#include "ws_topics.hpp"

namespace sluice::client::detail {

class WsSession final : public Session, private JsonSink {
 public:
  // `requests` must outlive the session.
  // `tls` is the context for a wss:// URL (empty otherwise).
  WsSession(const Url& url, WsRequests& requests, transport::TlsContext tls);

  ClientError run(Driver& driver) override;

  [[nodiscard]] bool json_protocol() const { return json_protocol_; }
  [[nodiscard]] const WsTopics& topics() const { return topics_; }

 private:
  ClientError handshake(Link& link, Driver& driver);
  ClientError check_handshake(const ResponseHead& head, Driver& driver) const;
  // The longest message taken: an event of max_event_bytes in this stream's form.
  [[nodiscard]] std::size_t message_limit(std::size_t max_event_bytes) const;
  ClientError pump(Link& link, Driver& driver);
  ClientError read_frames(Link& link, Driver& driver);
  ClientError decode(std::span<const char> bytes, Driver& driver);
  ClientError on_frame(const proto::ws::DecodeResult& frame, Driver& driver);
  ClientError on_message(std::span<const char> payload, bool binary, Driver& driver);
  ClientError on_json(std::string_view text, Driver& driver);
  ClientError on_server_event(Driver& driver);
  [[nodiscard]] bool read_raw_notice(std::string_view text);
  ClientError on_close(const proto::ws::DecodeResult& frame);
  ClientError fail(proto::ws::CloseCode code, std::string message);
  ClientError flush(Link& link);
  void take_requests(Driver& driver);
  void send_json(std::string_view json) override;
  void queue_frame(proto::ws::Opcode op, std::span<const char> payload);
  void end_connection(Link& link, const ClientError& why, Driver& driver);
  bool deliver(Event& event, Driver& driver);
  // When to ask ClientOptions::token for the next token (none: never).
  void schedule_refresh(const ClientOptions& options);
  // Sends {"op":"refresh"} with a new token, if there is one yet.
  void refresh(const ClientOptions& options);

  const Url url_;
  const transport::TlsContext tls_;
  const bool json_protocol_;
  const std::string raw_topic_;  // the topic of a /ws/{topic} connection
  WsRequests& requests_;
  WsTopics topics_;

  std::optional<proto::ws::Decoder> decoder_;  // one per connection
  char key_[proto::ws::kKeySize + 1] = {};
  std::string head_;
  std::vector<char> chunk_;
  std::string out_;           // frames to send
  std::size_t out_sent_ = 0;  // bytes of out_ already sent
  bool out_failed_ = false;   // the CSPRNG gave no mask key
  std::vector<WsRequest> taken_;
  std::vector<Event> lost_acks_;
  ServerMessages reader_;
  proto::wsjson::ServerMessage message_;
  Event scratch_;
  bool cancelled_ = false;  // the inbox refused an event: the client is stopping
  std::string token_;       // the credentials this connection presented last
  std::optional<std::chrono::steady_clock::time_point> refresh_at_;
  std::string refresh_json_;
};

// The topic of a /ws/{topic} URL, percent-decoded; empty for other paths.
[[nodiscard]] std::string raw_ws_topic(const Url& url);

}  // namespace sluice::client::detail
