// Owns: SolBatch, the speed-of-light server's prebuilt frames: `count`
// events laid end to end in one buffer, as SSE events (each with a
// fixed-width id line) or as unmasked WebSocket text frames, each payload in
// sluice-bench's format (tools/bench/stamp.hpp: stamp, publisher index 00,
// sequence number, filler). Restamping a batch rewrites the time and the
// sequence number of every event, and the SSE id; nothing is encoded per
// subscriber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::peers {

enum class SolFraming { sse, websocket };

class SolBatch {
 public:
  // Each payload is max(payload_size, 32) bytes.
  SolBatch(std::size_t count, std::size_t payload_size, SolFraming framing);

  // Gives the events ids (and sequence numbers) first_id.. and the stamp `now_ns`.
  void stamp(std::uint64_t first_id, std::uint64_t now_ns);

  [[nodiscard]] const std::string& bytes() const { return bytes_; }
  [[nodiscard]] std::size_t count() const { return payload_at_.size(); }

 private:
  void append_event(std::size_t payload_size);

  SolFraming framing_;
  std::string bytes_;
  std::vector<std::size_t> id_at_;       // offset of each SSE event's id digits
  std::vector<std::size_t> payload_at_;  // offset of each event's payload
};

}  // namespace sluice::peers
