// Owns: sluice's /ws JSON protocol as data, and its readers. A client
// sends requests (subscribe, unsubscribe, publish, refresh); the server sends
// events, acks and notices. ws_json_writer.hpp writes every one of them;
// docs/WEBSOCKET.md describes the protocol for its users.
//
// One codec serves the server and the client library, so the two cannot
// disagree on a field. It is sans-IO and never allocates: a reader takes
// one whole message (the WebSocket layer has joined its fragments and
// bounded its size) and a buffer of the caller's for decoded strings, and
// answers a typed message or an error with a one-line reason, which the
// server sends back in its ack. A hostile message costs one pass over its
// bytes and a fixed amount of stack, whatever it holds (json_reader.hpp).
//
// A request's `req` is kept as the exact text the client wrote, in a Req
// that owns a copy of at most 66 bytes: the ack echoes it byte for byte (a
// large integer comes back as written, not rounded through a double), and
// nothing a client builds is ever re-serialised or held beyond that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sluice::proto::wsjson {

// Bounds on one message, checked while it is read. The server's config
// keys are named after them (ws.json_max_depth, ...).
struct Limits {
  std::size_t max_message_bytes = std::size_t{1} << 20;  // the whole text
  std::uint32_t max_depth = 16;                          // nesting, the message itself is level 1 (1-64)
  std::size_t max_string_bytes = std::size_t{1} << 20;   // one string between its quotes, as written
  std::size_t max_number_chars = 32;                     // one number, as written
  std::size_t max_members = 64;                          // of one object, or elements of one array
};

enum class Error : std::uint8_t {
  none,
  too_large,         // the message is over max_message_bytes
  too_deep,          // nested past max_depth
  string_too_long,   // a string over max_string_bytes
  number_too_long,   // a number over max_number_chars
  too_many_members,  // an object or array over max_members
  not_json,          // not JSON text (RFC 8259)
  not_object,        // JSON, but not an object
  no_room,           // the caller's buffer is too small for the decoded strings
  duplicate,         // a member the protocol knows appears twice
  wrong_type,        // a member the protocol knows has a value of the wrong type
  bad_req,           // `req` is not a short scalar (see Req)
  missing,           // a member the message needs is absent
  unknown_op,        // a request whose op is none of subscribe, unsubscribe, publish, refresh
  bad_base64,        // an event's data_b64 is not base64
};

// What a reader answers. `reason` is one line of static text, empty when ok.
struct ReadResult {
  Error error = Error::none;
  const char* reason = "";

  [[nodiscard]] bool ok() const { return error == Error::none; }
};

// A request's `req`: absent (an ack then says null), or the JSON text of a
// string of at most 64 bytes between its quotes as written, a number of at
// most 32 characters, true, false or null. Objects, arrays and anything
// longer are refused by the reader (Error::bad_req).
class Req {
 public:
  static constexpr std::size_t kMaxStringBytes = 64;
  static constexpr std::size_t kMaxNumberChars = 32;
  static constexpr std::size_t kMaxText = kMaxStringBytes + 2;

  Req() = default;
  // The decimal number `number`: what the client library sends.
  explicit Req(std::uint64_t number);

  // The JSON text; empty when absent.
  [[nodiscard]] std::string_view text() const { return {text_, size_}; }
  [[nodiscard]] bool present() const { return size_ > 0; }
  // A plain decimal integer that fits 64 bits (the client's own numbers).
  [[nodiscard]] bool to_u64(std::uint64_t& number) const;

  friend bool operator==(const Req& a, const Req& b) { return a.text() == b.text(); }

 private:
  friend class ReqSetter;
  char text_[kMaxText] = {};
  std::uint8_t size_ = 0;
};

// refresh: the connection's credentials are replaced by `token` (a client
// renews its token before it expires); it names no topic.
enum class Op : std::uint8_t { subscribe, unsubscribe, publish, refresh };

// "subscribe", "unsubscribe", "publish" or "refresh".
[[nodiscard]] std::string_view op_name(Op op);

// A client's request. Views into the message or the reader's buffer; an
// absent member reads as empty, which means "not given".
struct Request {
  Op op = Op::subscribe;
  std::string_view topic;   // every op but refresh (present, may be empty: the server judges the name)
  std::string_view data;    // publish (required, a string; may be empty)
  std::string_view event;   // publish: the event name
  std::string_view key;     // publish: what the `latest` policy conflates by
  std::string_view since;   // subscribe: resume after this id
  std::string_view policy;  // subscribe: a slow-consumer policy among those offered
  std::string_view token;   // refresh (required, not empty): the new credentials; any other op: shown to the hook
  Req req;
};

// Reads one request. `scratch` receives decoded strings; text.size() bytes
// are always enough. On an error `out.req` is still set when the reader had
// read it before finding the error (so the error ack can name the request),
// else left absent; the other fields are unspecified.
[[nodiscard]] ReadResult read_request(std::string_view text, const Limits& limits, std::span<char> scratch,
                                      Request& out);

// Where a server message names its kind. The /ws protocol says "op"; a
// notice on /ws/{topic} says "sluice" (it shares the stream with the
// application's own messages); the data of an SSE notice says neither (its
// event name, sluice-dropped or sluice-reset, does).
enum class Style : std::uint8_t { json_protocol, raw_topic, bare };

enum class ServerOp : std::uint8_t { event, ack, dropped, reset, other };

// A message from the server, as the client reads it. Views into the
// message or the reader's buffer; absent members read as empty or zero.
struct ServerMessage {
  ServerOp op = ServerOp::other;  // other: a kind this codec does not know (a newer server)
  std::string_view topic;
  std::string_view id;        // event; ack of a publish
  std::string_view event;     // event: its name, empty when it has none
  std::string_view data;      // event: the data, decoded from base64 when `binary`
  bool binary = false;        // event: the data came as data_b64 (it is not UTF-8)
  Req req;                    // ack
  bool ok = false;            // ack
  std::string_view error;     // ack with ok false
  std::string_view last_id;   // ack of a subscribe: the topic's newest id; dropped, reset: see the writers
  std::string_view first_id;  // dropped
  std::uint64_t dropped = 0;  // dropped: how many
  std::string_view policy;    // dropped
  std::string_view reason;    // reset
};

// Reads one server message written in `style` (under Style::bare the kind
// is not in the text: `op` stays other). `scratch`: as read_request().
// An event needs exactly one of data and data_b64, an ack needs ok.
[[nodiscard]] ReadResult read_server_message(std::string_view text, Style style, const Limits& limits,
                                             std::span<char> scratch, ServerMessage& out);

}  // namespace sluice::proto::wsjson
