#include "sol_batch.hpp"

#include <algorithm>

namespace sluice::peers {

namespace {
constexpr std::size_t kIdDigits = 10;
constexpr std::size_t kStampDigits = 16;

void write_digits(char* out, std::uint64_t value, std::size_t width, unsigned base) {
  constexpr char kDigits[] = "0123456789abcdef";
  for (std::size_t i = width; i-- > 0; value /= base) out[i] = kDigits[value % base];
}
}  // namespace

SolBatch::SolBatch(std::size_t count, std::size_t payload_size) {
  const std::size_t size = std::max(payload_size, kStampDigits);
  for (std::size_t i = 0; i < count; ++i) {
    bytes_ += "id: ";
    id_at_.push_back(bytes_.size());
    bytes_.append(kIdDigits, '0');
    bytes_ += "\ndata: ";
    stamp_at_.push_back(bytes_.size());
    bytes_.append(size, 'x');
    bytes_ += "\n\n";
  }
}

void SolBatch::stamp(std::uint64_t first_id, std::uint64_t now_ns) {
  for (std::size_t i = 0; i < id_at_.size(); ++i) {
    write_digits(bytes_.data() + id_at_[i], first_id + i, kIdDigits, 10);
    write_digits(bytes_.data() + stamp_at_[i], now_ns, kStampDigits, 16);
  }
}

}  // namespace sluice::peers
