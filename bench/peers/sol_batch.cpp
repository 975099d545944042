#include "sol_batch.hpp"

#include <algorithm>

namespace sluice::peers {

namespace {
// The layout of tools/bench/stamp.hpp, restated: sol-server stays free of
// the bench tool's library.
constexpr std::size_t kStampDigits = 16;
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

SolBatch::SolBatch(std::size_t count, std::size_t payload_size, SolFraming framing) : framing_(framing) {
  const std::size_t size = std::max(payload_size, kPayloadHeader);
  for (std::size_t i = 0; i < count; ++i) append_event(size);
}

void SolBatch::append_event(std::size_t size) {
  if (framing_ == SolFraming::sse) {
    bytes_ += "id: ";
    id_at_.push_back(bytes_.size());
    bytes_.append(kIdDigits, '0');
    bytes_ += "\ndata: ";
  } else {
    bytes_ += text_frame_head(size);
  }
  payload_at_.push_back(bytes_.size());
  bytes_.append(kPayloadHeader, '0');  // publisher index 00 stays; the rest is restamped
  for (std::size_t i = kPayloadHeader; i < size; ++i) bytes_ += static_cast<char>('a' + i % 26);
  if (framing_ == SolFraming::sse) bytes_ += "\n\n";
}

void SolBatch::stamp(std::uint64_t first_id, std::uint64_t now_ns) {
  for (std::size_t i = 0; i < payload_at_.size(); ++i) {
    char* payload = bytes_.data() + payload_at_[i];
    write_digits(payload, now_ns, kStampDigits, 16);
    write_digits(payload + kSequenceOffset, first_id + i, kSequenceDigits, 16);
    if (framing_ == SolFraming::sse) write_digits(bytes_.data() + id_at_[i], first_id + i, kIdDigits, 10);
  }
}

}  // namespace sluice::peers
