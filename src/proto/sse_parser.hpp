// Owns: Parser, an incremental WHATWG EventSource stream parser for the
// client library, the benchmark tool and tests. Sans-IO: bytes go in as
// they arrive, in chunks of any size; dispatched events come out through a
// Handler.
//
// Memory is bounded by the limits: a line or an event's data that would pass
// them fails the stream instead of growing. The parser's buffers grow to the
// largest line and event seen, then are reused: no allocation per event in
// steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::proto::sse {

// What a data line holds beside its value: the field's name and the space
// after its colon ("data: ").
inline constexpr std::size_t kFieldNameRoom = std::string_view("data: ").size();

// A line may be as long as the data limit and the data field's name: an
// event is usually one JSON line, and a shorter line limit would cap it
// below max_data.
struct ParserLimits {
  std::size_t max_line = (std::size_t{1} << 20) + kFieldNameRoom;  // bytes in one line, without its line end
  std::size_t max_data = std::size_t{1} << 20;        // bytes of one event's data, LFs included
};

// Views into the parser; valid only during the Handler call that gets them.
struct ReceivedEvent {
  std::string_view id;    // the last event id after this event ("" if none yet)
  std::string_view type;  // "message" unless an "event:" field named one
  std::string_view data;  // the data lines joined with LF
};

// The Handler must not call back into the parser that calls it.
class Handler {
 public:
  virtual void on_event(const ReceivedEvent& event) = 0;
  // A "retry:" field made only of ASCII digits; values past 2^64-1 give
  // 2^64-1.
  virtual void on_retry(std::uint64_t retry_ms) { static_cast<void>(retry_ms); }
  // A comment line's text, after the ':' and one space (a server's
  // heartbeat is an empty one; its last words before a close may be one).
  virtual void on_comment(std::string_view text) { static_cast<void>(text); }

 protected:
  ~Handler() = default;
};

enum class ParseStatus : std::uint8_t {
  ok,             // every byte was used; a partial line or event waits for more
  line_too_long,  // a line passed max_line
  data_too_long,  // an event's data passed max_data
};

class Parser {
 public:
  explicit Parser(const ParserLimits& limits = {});

  // Parses `bytes`, calling `handler` for each event the bytes complete.
  // A UTF-8 BOM at the start of the stream is skipped; LF, CRLF and CR end
  // lines, also when a CRLF is split between two chunks. Comments and
  // unknown fields are ignored, as is an "id:" value holding NUL.
  // After an error the stream is failed: this and every later feed()
  // returns the same error and calls nothing, until reset().
  [[nodiscard]] ParseStatus feed(std::string_view bytes, Handler& handler);

  // Starts a new stream (a reconnection): forgets the partial line and event
  // and any error, but keeps last_event_id(), which the client sends back as
  // Last-Event-ID.
  void reset();

  // The id of the last dispatched event; valid until the next feed().
  [[nodiscard]] std::string_view last_event_id() const { return last_id_; }
  [[nodiscard]] ParseStatus status() const { return status_; }

 private:
  std::string_view skip_bom(std::string_view bytes);
  std::string_view consume(std::string_view bytes, Handler& handler);
  void hold_partial(std::string_view bytes);
  void process_line(std::string_view line, Handler& handler);
  void process_field(std::string_view field, std::string_view value, Handler& handler);
  void append_data(std::string_view value);
  void dispatch(Handler& handler);

  ParserLimits limits_;
  std::string line_;       // a line split across chunks
  std::string data_;       // the data buffer: each data line plus LF
  std::string type_;       // the event type buffer
  std::string id_buffer_;  // the last event ID buffer
  std::string last_id_;    // the id of the last dispatched event
  ParseStatus status_ = ParseStatus::ok;
  std::uint8_t bom_seen_ = 0;  // BOM bytes matched so far; 3 once the stream start is past
  bool skip_lf_ = false;       // the last line ended with CR: an LF next is its end too
};

}  // namespace sluice::proto::sse
