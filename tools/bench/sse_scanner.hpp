// Owns: SseScanner, the bench's strict, copy-free Server-Sent Events reader.
//
// It accepts exactly what a well-behaved push server sends the bench: LF line
// ends, "id:" with a decimal id (or "EPOCH:SEQ", sluiced's; any text when
// ids are not parsed), one "data:" line per event (bench payloads
// never hold a line break), "event:", "retry:" and comments. Anything else
// (a CR, an unknown field, a second data line) fails the stream, because a
// benchmark that counts garbage as deliveries would flatter the server.
// Complete events are handed over as views into the caller's bytes; only the
// unfinished tail of a read is copied, so steady state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::bench {

struct SseEvent {
  bool has_id = false;
  std::uint64_t id = 0;       // 0 when ids are not parsed
  std::string_view id_text;   // the id as sent; valid only during the handler call
  std::string_view data;      // valid only during the handler call
};

class SseHandler {
 public:
  virtual void on_event(const SseEvent& event) = 0;
  // A block made only of comments: a heartbeat or a drop notice.
  virtual void on_comment(std::string_view text) { static_cast<void>(text); }

 protected:
  ~SseHandler() = default;
};

enum class ScanStatus : std::uint8_t { ok, bad_line, event_too_large };

class SseScanner {
 public:
  // With `parse_ids` false an id is kept as text and not read as a number
  // (a reader that checks the payload's own sequence, or a server whose
  // ids are not numbers), which also spares the parse per event.
  explicit SseScanner(std::size_t max_event = std::size_t{1} << 20, bool parse_ids = true)
      : max_event_(max_event), parse_ids_(parse_ids) {}

  // Scans `bytes`, the next part of the stream, calling `handler` for each
  // event it completes. After an error every call returns that error.
  ScanStatus feed(std::string_view bytes, SseHandler& handler);

  [[nodiscard]] ScanStatus status() const { return status_; }
  // The line that failed the stream (for the report), cut to 80 bytes.
  [[nodiscard]] const std::string& bad_line() const { return bad_line_; }

 private:
  struct Pending {
    SseEvent event;
    bool has_data = false;
    bool has_comment = false;
    std::string_view comment;
  };

  std::size_t scan(std::string_view bytes, SseHandler& handler);
  std::size_t take_simple(std::string_view bytes, std::size_t pos, SseHandler& handler);
  std::size_t take_lines(std::string_view bytes, std::size_t pos, SseHandler& handler);
  bool take_line(std::string_view line, Pending& pending);
  bool finish_carry(std::string_view& bytes, SseHandler& handler);
  void keep_tail(std::string_view tail);
  void fail(ScanStatus why, std::string_view line);

  std::size_t max_event_;
  bool parse_ids_;
  std::string carry_;  // an event cut by the end of a read
  std::string bad_line_;
  ScanStatus status_ = ScanStatus::ok;
};

}  // namespace sluice::bench
