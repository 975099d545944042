#include "ws_session.hpp"

#include <algorithm>
#include <ctime>
#include <limits>
#include <string>
#include <utility>

#include "bearer_token.hpp"
#include "head_reader.hpp"
#include "notice.hpp"
#include "proto/url.hpp"
#include "token_expiry.hpp"
#include "ws_frames.hpp"

namespace sluice::client::detail {

namespace {

using Clock = std::chrono::steady_clock;
using proto::ws::CloseCode;
using proto::wsjson::ServerOp;
using proto::wsjson::Style;
using proto::ws::DecodeStatus;
using proto::ws::Opcode;
using std::chrono::milliseconds;

constexpr std::size_t kChunkBytes = std::size_t{64} << 10;
// Requests are taken from the application only while fewer bytes than this
// wait to be sent.
constexpr std::size_t kRefillBelow = std::size_t{64} << 10;
constexpr std::string_view kJsonPath = "/ws";
// A token source that has no new token yet near the old one's expiry is
// asked again this often.
constexpr milliseconds kRefreshRetry{1000};

std::span<const char> view_of(std::string_view s) { return {s.data(), s.size()}; }

std::string_view text_of(std::span<const char> s) { return {s.data(), s.size()}; }

void set_event(Event& e, EventKind kind, std::string_view topic, std::string_view id, std::string_view type,
               std::string_view data) {
  e.kind = kind;
  e.topic.assign(topic);
  e.id.assign(id);
  e.type.assign(type);
  e.data.assign(data);
  e.binary = false;
  e.dropped = 0;
  e.req = 0;
  e.ok = true;
}

std::string_view notice_type(EventKind kind) {
  return kind == EventKind::dropped ? kDroppedEventName : kResetEventName;
}

}  // namespace

std::string raw_ws_topic(const Url& url) {
  const std::string_view path = url.path();
  if (path == kJsonPath) return {};
  const std::string_view raw = path.substr(path.rfind('/') + 1);
  std::string topic(raw.size(), '\0');
  const long n = proto::url::percent_decode(raw, topic.data(), topic.size(), false);
  topic.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return topic;
}

WsSession::WsSession(const Url& url, WsRequests& requests, transport::TlsContext tls)
    : url_(url),
      tls_(std::move(tls)),
      json_protocol_(url.path() == kJsonPath),
      raw_topic_(raw_ws_topic(url)),
      requests_(requests),
      topics_(requests),
      chunk_(kChunkBytes) {}

ClientError WsSession::run(Driver& driver) {
  cancelled_ = false;
  out_.clear();
  out_sent_ = 0;
  out_failed_ = false;
  Link link(&driver.wake(), &driver.interrupt());
  ClientError error = handshake(link, driver);
  if (error.kind == ErrorKind::none) error = pump(link, driver);
  end_connection(link, error, driver);
  return error;
}

ClientError WsSession::handshake(Link& link, Driver& driver) {
  const ClientOptions& options = driver.options();
  if (ClientError e = link.connect(url_, options.connect_timeout, options.receive_buffer, &tls_);
      e.kind != ErrorKind::none) {
    return e;
  }
  if (!proto::ws::make_client_key(key_)) {
    return {.kind = ErrorKind::resources, .message = "no random bytes for a WebSocket key"};
  }
  token_ = options.token ? options.token() : std::string();
  if (!detail::fits_a_header(token_)) return detail::unfit_token();
  std::string request = "GET " + url_.target + " HTTP/1.1\r\nHost: " + url_.authority() +
                        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key_ +
                        "\r\nSec-WebSocket-Version: 13\r\n";
  if (!token_.empty()) request += "Authorization: Bearer " + token_ + "\r\n";
  request += "\r\n";
  if (const IoResult r = link.write_all(request, options.connect_timeout); r != IoResult::ok) {
    return io_result_error(r, link, "while sending the handshake");
  }
  ResponseHead head;
  std::size_t bytes = 0;
  ClientError error = read_head(link, head_, chunk_, options.connect_timeout, head, bytes);
  driver.add_bytes(bytes);
  if (error.kind == ErrorKind::none) error = check_handshake(head, driver);
  if (error.kind != ErrorKind::none) return error;
  head_.erase(0, head.size);
  decoder_.emplace(proto::ws::DecoderLimits{.max_message_size = message_limit(options.max_event_bytes),
                                            .role = proto::ws::Role::client});
  driver.opened();
  if (json_protocol_) topics_.resubscribe(*this);
  schedule_refresh(options);
  return decode(view_of(head_), driver);
}

// On /ws an event's data travels inside a JSON string, where a control
// character takes six bytes (\u0001) and data that is not UTF-8 is base64:
// the message may be up to six times the data, plus its topic, id and
// name. An event the SSE client would take must fit here too.
std::size_t WsSession::message_limit(std::size_t max_event_bytes) const {
  if (!json_protocol_) return max_event_bytes;
  constexpr std::size_t kEscapeGrowth = 6;
  constexpr std::size_t kEnvelope = 8192;  // a topic of 1 KiB, an escaped event name, an id, the keys
  const std::size_t most = (std::numeric_limits<std::size_t>::max() - kEnvelope) / kEscapeGrowth;
  return std::min(max_event_bytes, most) * kEscapeGrowth + kEnvelope;
}

ClientError WsSession::check_handshake(const ResponseHead& head, Driver& driver) const {
  if (head.status != 101) {
    driver.set_retry_after(retry_after_delay(head.retry_after));
    const std::string_view body = head.transfer_encoding.empty() ? std::string_view(head_).substr(head.size) : "";
    return status_error(head.status, "GET " + url_.target, body);
  }
  if (!list_has_token(head.upgrade, "websocket") || !list_has_token(head.connection, "upgrade")) {
    return {.kind = ErrorKind::bad_response, .message = "the server answered 101 without upgrading to WebSocket"};
  }
  if (!proto::ws::verify_accept(key_, head.websocket_accept)) {
    return {.kind = ErrorKind::bad_response, .message = "Sec-WebSocket-Accept does not match the key sent"};
  }
  return {};
}

ClientError WsSession::pump(Link& link, Driver& driver) {
  const milliseconds idle = driver.options().idle_timeout;
  const std::size_t max_out = driver.options().queue_bytes + driver.options().max_event_bytes + kRefillBelow;
  auto last_heard = Clock::now();
  while (true) {
    if (json_protocol_) take_requests(driver);
    if (cancelled_) return {.kind = ErrorKind::aborted, .message = "the client is stopping"};
    if (out_failed_) return {.kind = ErrorKind::resources, .message = "no random bytes for a mask key"};
    if (out_.size() - out_sent_ > max_out) {
      return {.kind = ErrorKind::io_error, .message = "the server does not read what the client sends"};
    }
    const auto now = Clock::now();
    if (refresh_at_ && now >= *refresh_at_) refresh(driver.options());
    const auto quiet = std::chrono::duration_cast<milliseconds>(now - last_heard);
    if (idle.count() > 0 && quiet >= idle) return io_result_error(IoResult::timeout, link, "from the server");
    bool readable = false;
    bool writable = false;
    milliseconds limit = idle.count() > 0 ? idle - quiet : milliseconds(-1);
    if (refresh_at_) {
      const auto until = std::max(milliseconds(0), std::chrono::ceil<milliseconds>(*refresh_at_ - now));
      limit = limit.count() < 0 ? until : std::min(limit, until);
    }
    const IoResult r = link.wait(out_sent_ < out_.size(), limit, readable, writable);
    if (r == IoResult::woken || r == IoResult::timeout) continue;
    if (r != IoResult::ok) return io_result_error(r, link, "while streaming");
    // Over TLS a record may wait in the link with nothing left in out_.
    if (writable && (out_sent_ < out_.size() || link.holds_output())) {
      if (ClientError e = flush(link); e.kind != ErrorKind::none) return e;
    }
    if (!readable) continue;
    if (ClientError e = read_frames(link, driver); e.kind != ErrorKind::none) return e;
    last_heard = Clock::now();
  }
}

ClientError WsSession::read_frames(Link& link, Driver& driver) {
  std::size_t got = 0;
  const IoResult r = link.receive(chunk_, got);
  if (r == IoResult::eof) {
    return {.kind = ErrorKind::closed,
            .close_code = proto::ws::to_wire(CloseCode::abnormal),
            .message = "the server closed the connection without a close frame"};
  }
  if (r != IoResult::ok) return io_result_error(r, link, "while streaming");
  driver.add_bytes(got);
  return decode({chunk_.data(), got}, driver);
}

ClientError WsSession::decode(std::span<const char> bytes, Driver& driver) {
  while (true) {
    const proto::ws::DecodeResult frame = decoder_->feed(bytes);
    bytes = bytes.subspan(frame.consumed);
    if (frame.status == DecodeStatus::need_more) return {};
    if (ClientError e = on_frame(frame, driver); e.kind != ErrorKind::none) return e;
    if (cancelled_) return {.kind = ErrorKind::aborted, .message = "the client is stopping"};
  }
}

ClientError WsSession::on_frame(const proto::ws::DecodeResult& frame, Driver& driver) {
  switch (frame.status) {
    case DecodeStatus::message:
      return on_message(frame.payload, frame.opcode == Opcode::binary, driver);
    case DecodeStatus::ping:
      queue_frame(Opcode::pong, frame.payload);
      return {};
    case DecodeStatus::close:
      return on_close(frame);
    case DecodeStatus::error:
      if (frame.close_code == CloseCode::message_too_big) {
        return fail(frame.close_code, "the stream broke off: a message passed this client's limit (max_event_bytes " +
                                          std::to_string(driver.options().max_event_bytes) +
                                          (json_protocol_ ? ", with room for its JSON form)" : ")"));
      }
      return fail(frame.close_code, std::string("a bad frame from the server: ") + frame.error);
    default:
      return {};
  }
}

ClientError WsSession::on_close(const proto::ws::DecodeResult& frame) {
  const std::uint16_t code = proto::ws::to_wire(frame.close_code);
  // Echo the peer's code (RFC 6455 §5.5.1); one that may not be sent gets 1000.
  const bool echo = proto::ws::is_valid_close_code(code);
  if (!append_client_close(out_, echo ? frame.close_code : CloseCode::normal)) out_failed_ = true;
  std::string message = "the server closed the WebSocket with " + std::to_string(code);
  if (!frame.payload.empty()) {
    message += " (";
    append_server_words(message, text_of(frame.payload));
    message += ")";
  }
  return {.kind = ErrorKind::closed, .close_code = code, .message = std::move(message)};
}

ClientError WsSession::fail(CloseCode code, std::string message) {
  if (!append_client_close(out_, code)) out_failed_ = true;
  return {.kind = ErrorKind::protocol, .close_code = proto::ws::to_wire(code), .message = std::move(message)};
}

ClientError WsSession::on_message(std::span<const char> payload, bool binary, Driver& driver) {
  const std::string_view text = text_of(payload);
  if (json_protocol_) {
    if (binary) return fail(CloseCode::unsupported_data, "a binary message on the JSON protocol");
    return on_json(text, driver);
  }
  if (binary || !read_raw_notice(text)) {
    set_event(scratch_, EventKind::message, raw_topic_, {}, "message", text);
    scratch_.binary = binary;
  }
  deliver(scratch_, driver);
  return {};
}

// On /ws/{topic} the server's notices are text messages {"sluice":"dropped",...}
// and {"sluice":"reset",...}; fills scratch_ with one when `text` is one.
bool WsSession::read_raw_notice(std::string_view text) {
  if (!text.starts_with("{\"sluice\":") || !reader_.read(text, Style::raw_topic, message_).ok()) return false;
  if (message_.op != ServerOp::dropped && message_.op != ServerOp::reset) return false;
  const EventKind kind = message_.op == ServerOp::dropped ? EventKind::dropped : EventKind::reset;
  const std::string_view topic = message_.topic.empty() ? std::string_view(raw_topic_) : message_.topic;
  set_event(scratch_, kind, topic, {}, notice_type(kind), text);
  scratch_.dropped = message_.dropped;
  return true;
}

ClientError WsSession::on_json(std::string_view text, Driver& driver) {
  if (const proto::wsjson::ReadResult r = reader_.read(text, Style::json_protocol, message_); !r.ok()) {
    return fail(CloseCode::policy_violation, std::string("a message that is not sluice's JSON protocol: ") + r.reason);
  }
  switch (message_.op) {
    case ServerOp::ack:
      if (topics_.on_ack(message_, scratch_)) deliver(scratch_, driver);
      return {};
    case ServerOp::event:
      return on_server_event(driver);
    case ServerOp::dropped:
    case ServerOp::reset: {
      if (!topics_.follows(message_.topic)) return {};
      const EventKind kind = message_.op == ServerOp::dropped ? EventKind::dropped : EventKind::reset;
      set_event(scratch_, kind, message_.topic, {}, notice_type(kind), text);
      scratch_.dropped = message_.dropped;
      deliver(scratch_, driver);
      return {};
    }
    case ServerOp::other:
      return {};  // from a newer server: not ours to refuse
  }
  return {};
}

ClientError WsSession::on_server_event(Driver& driver) {
  if (!topics_.follows(message_.topic)) return {};
  // The message may be six times the data (message_limit()); the data
  // itself is held to the limit SSE holds it to.
  if (const std::size_t max = driver.options().max_event_bytes; message_.data.size() > max) {
    return fail(CloseCode::message_too_big,
                "the stream broke off: an event's data passed max_event_bytes (" + std::to_string(max) + ")");
  }
  const std::string_view type = message_.event.empty() ? std::string_view("message") : message_.event;
  set_event(scratch_, EventKind::message, message_.topic, message_.id, type, message_.data);
  scratch_.binary = message_.binary;  // it came as data_b64
  // As SseSession: the resume point moves before the hand-over, back if refused.
  const bool remember = !message_.id.empty();
  if (remember) topics_.on_event(message_.topic, message_.id);
  if (!deliver(scratch_, driver) && remember) topics_.undo_event(message_.topic);
  return {};
}

bool WsSession::deliver(Event& event, Driver& driver) {
  if (driver.inbox().push(event)) return true;
  cancelled_ = true;
  return false;
}

void WsSession::take_requests(Driver& driver) {
  if (out_.size() - out_sent_ >= kRefillBelow) return;
  requests_.take(taken_);
  for (const WsRequest& request : taken_) {
    if (topics_.apply(request, *this, scratch_)) deliver(scratch_, driver);
  }
  taken_.clear();
}

void WsSession::send_json(std::string_view json) { queue_frame(Opcode::text, view_of(json)); }

// Only the /ws protocol can present new credentials in the stream; a
// /ws/{topic} connection is closed 4401 at its token's expiry and
// reconnects with the token of that moment.
void WsSession::schedule_refresh(const ClientOptions& options) {
  refresh_at_.reset();
  if (!json_protocol_ || !options.token) return;
  const std::optional<std::int64_t> exp = token_expiry(token_);
  if (!exp) return;
  const auto left = std::chrono::system_clock::from_time_t(static_cast<std::time_t>(*exp)) -
                    std::chrono::system_clock::now();
  refresh_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(left) - options.refresh_before;
}

void WsSession::refresh(const ClientOptions& options) {
  std::string next = options.token();
  if (next.empty() || next == token_) {
    refresh_at_ = Clock::now() + kRefreshRetry;
    return;
  }
  token_ = std::move(next);
  refresh_json_.clear();
  encode_refresh(token_, requests_.next_req(), refresh_json_);
  send_json(refresh_json_);
  schedule_refresh(options);
  // A source that hands out tokens shorter-lived than refresh_before would
  // otherwise be asked, and each answer sent, on every turn.
  if (refresh_at_) refresh_at_ = std::max(*refresh_at_, Clock::now() + kRefreshRetry);
}

void WsSession::queue_frame(Opcode op, std::span<const char> payload) {
  if (out_sent_ == out_.size()) {
    out_.clear();
    out_sent_ = 0;
  }
  if (!append_client_frame(out_, op, payload)) out_failed_ = true;
}

ClientError WsSession::flush(Link& link) {
  std::size_t sent = 0;
  const IoResult r = link.send_some(std::string_view(out_).substr(out_sent_), sent);
  if (r != IoResult::ok) return io_result_error(r, link, "while sending");
  out_sent_ += sent;
  return {};
}

// Says goodbye when it can (one try, no waiting: the connection is over
// either way), and answers the requests this connection will not answer.
void WsSession::end_connection(Link& link, const ClientError& why, Driver& driver) {
  const bool open = link.is_open() && decoder_.has_value();
  if (open && why.kind == ErrorKind::aborted && !append_client_close(out_, CloseCode::normal)) out_failed_ = true;
  if (open && out_sent_ < out_.size()) (void)flush(link);
  topics_.on_disconnect(lost_acks_);
  for (Event& ack : lost_acks_) deliver(ack, driver);
  decoder_.reset();
}

}  // namespace sluice::client::detail
