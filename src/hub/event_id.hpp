// Owns: the text form of event ids, "EPOCH:SEQ". SEQ counts a topic's events
// from 1; EPOCH names the server run (base-36 milliseconds at start), so an
// id from before a restart is never mistaken for one from after it.
#pragma once

#include <cstddef>
#include <cstdint>
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

struct ParsedId {
  std::string_view epoch;
  std::uint64_t seq = 0;
  bool ok = false;  // false: not of the form EPOCH:SEQ
};
[[nodiscard]] ParsedId parse_event_id(std::string_view text);

}  // namespace sluice::hub
