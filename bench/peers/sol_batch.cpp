#include "sol_batch.hpp"

#include <algorithm>

namespace sluice::peers {

namespace {
// The layout of tools/bench/stamp.hpp, restated: sol-server stays free of
// the bench tool's library.
constexpr std::size_t kStampDigits = 16;
constexpr std::size_t kIndexOffset = 16;
constexpr std::size_t kIndexDigits = 2;
constexpr std::size_t kSequenceOffset = 18;
constexpr std::size_t kSequenceDigits = 14;
constexpr std::size_t kPayloadHeader = 32;
constexpr std::size_t kIdDigits = 10;

void write_digits(char* out, std::uint64_t value, std::size_t width, unsigned base) {
  constexpr char kDigits[] = "0123456789abcdef";
  for (std::size_t i = width; i-- > 0; value /= base) out[i] = kDigits[value % base];
}

// The unmasked FIN + text frame head (RFC 6455 §5.2) of a `size`-byte payload.
std::string text_frame_head(std::size_t size) {
  std::string head(1, '\x81');
  if (size < 126) return head + static_cast<char>(size);
  const bool medium = size <= 0xFFFF;
  head += static_cast<char>(medium ? 126 : 127);
  for (int shift = medium ? 8 : 56; shift >= 0; shift -= 8) head += static_cast<char>((size >> shift) & 0xFF);
  return head;
}
}  // namespace

SolBatch::SolBatch(std::size_t count, std::size_t payload_size, SolFraming framing, std::uint32_t index,
                   bool with_ids)
    : framing_(framing), index_(index), with_ids_(with_ids && framing == SolFraming::sse) {
  const std::size_t size = std::max(payload_size, kPayloadHeader);
  for (std::size_t i = 0; i < count; ++i) append_event(size, i + 1);
}

void SolBatch::append_event(std::size_t size, std::uint64_t seq) {
  if (with_ids_) {
    bytes_ += "id: ";
    id_at_.push_back(bytes_.size());
    bytes_.append(kIdDigits, '0');
    write_digits(bytes_.data() + id_at_.back(), seq, kIdDigits, 10);
    bytes_ += "\n";
  }
  bytes_ += framing_ == SolFraming::sse ? std::string("data: ") : text_frame_head(size);
  payload_at_.push_back(bytes_.size());
  bytes_.append(kPayloadHeader, '0');
  char* payload = bytes_.data() + payload_at_.back();
  write_digits(payload + kIndexOffset, index_, kIndexDigits, 16);
  write_digits(payload + kSequenceOffset, seq, kSequenceDigits, 16);
  for (std::size_t i = kPayloadHeader; i < size; ++i) bytes_ += static_cast<char>('a' + (i + index_) % 26);
  if (framing_ == SolFraming::sse) bytes_ += "\n\n";
}

void SolBatch::stamp(std::uint64_t first_id, std::uint64_t now_ns) {
  for (std::size_t i = 0; i < payload_at_.size(); ++i) {
    char* payload = bytes_.data() + payload_at_[i];
    write_digits(payload, now_ns, kStampDigits, 16);
    write_digits(payload + kSequenceOffset, first_id + i, kSequenceDigits, 16);
    if (with_ids_) write_digits(bytes_.data() + id_at_[i], first_id + i, kIdDigits, 10);
  }
}

std::string sol_frame(std::string_view payload, SolFraming framing) {
  if (framing == SolFraming::websocket) return text_frame_head(payload.size()).append(payload);
  return std::string("data: ").append(payload).append("\n\n");
}

}  // namespace sluice::peers
