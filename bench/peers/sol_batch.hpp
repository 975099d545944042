// Owns: SolBatch, the speed-of-light server's prebuilt frames: `count` SSE
// events laid end to end in one buffer, each with a fixed-width id and a
// payload in sluice-bench's stamp format. Restamping a batch writes 16
// digits of time and 10 of id per event; nothing is encoded per subscriber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::peers {

class SolBatch {
 public:
  SolBatch(std::size_t count, std::size_t payload_size);

  // Gives the events ids first_id.. and the stamp `now_ns`.
  void stamp(std::uint64_t first_id, std::uint64_t now_ns);

  [[nodiscard]] const std::string& bytes() const { return bytes_; }
  [[nodiscard]] std::size_t count() const { return id_at_.size(); }

 private:
  std::string bytes_;
  std::vector<std::size_t> id_at_;     // offset of each event's id digits
  std::vector<std::size_t> stamp_at_;  // offset of each event's payload
};

}  // namespace sluice::peers
