// Owns: SolBatch, the speed-of-light server's prebuilt bytes: `count`
// events laid end to end in one contiguous buffer, as SSE events or as
// unmasked WebSocket text frames, each payload in sluice-bench's format
// (tools/bench/stamp.hpp: stamp, publisher index, sequence number, filler).
//
// A fan-out batch is built once and never written again: its events are
// numbered 1..count under the generator's publisher index (ff, which a
// reader knows starts again at 1 after the batch's last number) and carry
// a zero stamp (no latency sample), and its SSE events carry no id. So a
// round costs one send() per subscriber and nothing per event. A burst
// (stamp()) is the exception: it is stamped once per new subscriber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::peers {

enum class SolFraming { sse, websocket };

// The publisher index of a batch that repeats (stamp.hpp: kGeneratorIndex).
inline constexpr std::uint32_t kSolGeneratorIndex = 0xff;

class SolBatch {
 public:
  // Each payload is max(payload_size, 32) bytes, from publisher `index`;
  // SSE events get fixed-width "id:" lines only when `with_ids`.
  SolBatch(std::size_t count, std::size_t payload_size, SolFraming framing, std::uint32_t index, bool with_ids);

  // Gives the events ids (and sequence numbers) first_id.. and the stamp
  // `now_ns`: per-event work, for a burst only.
  void stamp(std::uint64_t first_id, std::uint64_t now_ns);

  [[nodiscard]] std::string_view bytes() const { return bytes_; }
  [[nodiscard]] std::size_t count() const { return payload_at_.size(); }

 private:
  void append_event(std::size_t payload_size, std::uint64_t seq);

  SolFraming framing_;
  std::uint32_t index_;
  bool with_ids_;
  std::string bytes_;
  std::vector<std::size_t> id_at_;       // offset of each SSE event's id digits
  std::vector<std::size_t> payload_at_;  // offset of each event's payload
};

// One event as an unmasked text frame, or as "data: ...\n\n": what the
// relay mode sends for each published message.
[[nodiscard]] std::string sol_frame(std::string_view payload, SolFraming framing);

}  // namespace sluice::peers
