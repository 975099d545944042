// Owns: the text form of event ids, "EPOCH:SEQ". SEQ counts a topic's events
// from 1; EPOCH names the server run (base-36 milliseconds at start), so an
// id from before a restart is never mistaken for one from after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sluice::hub {

// Longest id text: a 13-digit epoch, ':', a 20-digit sequence.
inline constexpr std::size_t kMaxIdText = 40;

// A fresh epoch for this run of the server.
[[nodiscard]] std::string make_epoch();

// Writes "EPOCH:SEQ" into `out` (kMaxIdText bytes); returns its length.
std::size_t format_event_id(std::string_view epoch, std::uint64_t seq, char* out);

// The same for a topic read from a broker: EPOCH is the millisecond its
// stream was created, written in base 36 as make_epoch() writes its own.
std::size_t format_stream_event_id(std::uint64_t epoch_ms, std::uint64_t seq, char* out);
// Whether `epoch` (the text of an id) names the stream of `epoch_ms`.
[[nodiscard]] bool same_stream_epoch(std::string_view epoch, std::uint64_t epoch_ms);
// The millisecond a stream's epoch text names (base 36, as written); 0
// when the text is not one.
[[nodiscard]] std::uint64_t parse_stream_epoch(std::string_view epoch);

// An event's id, written out the first time a form that carries it asks:
// a WebSocket message does not, so most deliveries never write it.
class EventIdText {
 public:
  // To be written from the server run's epoch text (`stream_epoch_ms` 0) or
  // from a broker's stream epoch; `run_epoch` must outlive this.
  EventIdText(std::string_view run_epoch, std::uint64_t stream_epoch_ms, std::uint64_t seq)
      : run_epoch_(run_epoch), stream_epoch_ms_(stream_epoch_ms), seq_(seq) {}

  // A copy holds its own text (nothing points into the original). Field by
  // field, and the text only once written: a copy of the whole object, as
  // the compiler makes it, reads a just-built id (one per event, in every
  // drain) with loads wider than its fields were stored with, and each
  // waits for the stores to land.
  EventIdText(const EventIdText& other) noexcept
      : size_(other.size_),
        written_(other.written_),
        run_epoch_(other.run_epoch_),
        stream_epoch_ms_(other.stream_epoch_ms_),
        seq_(other.seq_) {
    if (written_) std::memcpy(text_, other.text_, size_);
  }
  EventIdText& operator=(const EventIdText&) = delete;

  [[nodiscard]] std::string_view view() {
    if (written_) return {text_, size_};
    size_ = stream_epoch_ms_ == 0 ? format_event_id(run_epoch_, seq_, text_)
                                  : format_stream_event_id(stream_epoch_ms_, seq_, text_);
    written_ = true;
    return {text_, size_};
  }

 private:
  std::size_t size_ = 0;
  bool written_ = false;  // text_ holds it
  std::string_view run_epoch_;
  std::uint64_t stream_epoch_ms_ = 0;
  std::uint64_t seq_ = 0;
  char text_[kMaxIdText];
};

// The largest SEQ an id may carry. No topic counts that far, and a
// client's id past it would wrap the one after it (or name the hub's own
// marks, which sit at the top of the range): such an id is malformed.
inline constexpr std::uint64_t kMaxEventSeq = (std::uint64_t{1} << 63) - 1;

struct ParsedId {
  std::string_view epoch;
  std::uint64_t seq = 0;
  bool ok = false;  // false: not of the form EPOCH:SEQ
};
[[nodiscard]] ParsedId parse_event_id(std::string_view text);

}  // namespace sluice::hub
