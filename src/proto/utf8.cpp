// UTF-8 validation as a tiny state machine: the lead byte fixes how many
// continuation bytes follow and the range of the first one (RFC 3629 §4
// table), which is what rejects overlongs, surrogates and > U+10FFFF at the
// earliest byte. Runs of ASCII are skipped sixteen bytes at a time.
#include "proto/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace sluice::proto::ws {

namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

const unsigned char* skip_ascii(const unsigned char* p, const unsigned char* end) {
  while (end - p >= 16) {  // two words a turn: half the turns on the text published most
    std::uint64_t words[2];
    std::memcpy(words, p, sizeof words);
    if (((words[0] | words[1]) & kHighBits) != 0) break;
    p += 16;
  }
  while (end - p >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    if ((word & kHighBits) != 0) break;
    p += 8;
  }
  while (p < end && *p < 0x80) ++p;
  return p;
}

}  // namespace

Utf8Status Utf8Validator::fail() {
  invalid_ = true;
  return Utf8Status::invalid;
}

bool Utf8Validator::start_sequence(unsigned char lead) {
  low_ = 0x80;
  high_ = 0xBF;
  if (lead < 0xC2) return false;  // a stray continuation byte, or C0/C1 (always overlong)
  if (lead < 0xE0) {
    need_ = 1;
  } else if (lead < 0xF0) {
    need_ = 2;
    if (lead == 0xE0) low_ = 0xA0;   // below is an overlong 3-byte form
    if (lead == 0xED) high_ = 0x9F;  // above are the surrogates
  } else if (lead < 0xF5) {
    need_ = 3;
    if (lead == 0xF0) low_ = 0x90;   // below is an overlong 4-byte form
    if (lead == 0xF4) high_ = 0x8F;  // above is beyond U+10FFFF
  } else {
    return false;
  }
  return true;
}

bool Utf8Validator::continue_sequence(unsigned char byte) {
  if (byte < low_ || byte > high_) return false;
  low_ = 0x80;
  high_ = 0xBF;
  --need_;
  return true;
}

Utf8Status Utf8Validator::feed(const char* data, std::size_t size) {
  if (invalid_) return Utf8Status::invalid;
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const auto* end = p + size;
  while (p < end) {
    if (need_ == 0) {
      p = skip_ascii(p, end);
      if (p == end) break;
      if (!start_sequence(*p++)) return fail();
    } else if (!continue_sequence(*p++)) {
      return fail();
    }
  }
  return status();
}

Utf8Status Utf8Validator::status() const {
  if (invalid_) return Utf8Status::invalid;
  return need_ == 0 ? Utf8Status::valid_complete : Utf8Status::valid_incomplete;
}

// Text that is all ASCII, most of what is published, needs no validator;
// other text is checked from its first byte that is not.
bool is_valid_utf8(std::string_view text) {
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = begin + text.size();
  const unsigned char* rest = skip_ascii(begin, end);
  if (rest == end) return true;
  Utf8Validator validator;
  return validator.feed(reinterpret_cast<const char*>(rest), static_cast<std::size_t>(end - rest)) ==
         Utf8Status::valid_complete;
}

}  // namespace sluice::proto::ws
