// Owns: Utf8Validator, an incremental UTF-8 checker for text that arrives
// in pieces (WebSocket text fragments, close reasons).
//
// RFC 6455 §8.1 wants a text message failed as soon as its bytes cannot be
// UTF-8, not when the message ends, so the validator rejects at the first
// byte that no valid continuation could follow: overlong forms, UTF-16
// surrogates (U+D800-U+DFFF), code points above U+10FFFF, and a sequence
// interrupted by a byte that is not a continuation byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::proto::ws {

enum class Utf8Status : std::uint8_t {
  valid_complete,    // everything so far is UTF-8 and no sequence is open
  valid_incomplete,  // valid so far, but the input ends inside a sequence
  invalid,           // a byte can never be valid here; sticky until reset()
};

class Utf8Validator {
 public:
  // Checks `size` more bytes, continuing any sequence the last call left
  // open. Stops at the first invalid byte. `data` is only read during the
  // call. Never allocates.
  [[nodiscard]] Utf8Status feed(const char* data, std::size_t size);

  [[nodiscard]] Utf8Status status() const;

  // Forgets all input, ready for a new text.
  void reset() { *this = Utf8Validator{}; }

 private:
  [[nodiscard]] bool start_sequence(unsigned char lead);
  [[nodiscard]] bool continue_sequence(unsigned char byte);
  Utf8Status fail();

  std::uint8_t need_ = 0;    // continuation bytes still to come
  std::uint8_t low_ = 0x80;  // the next continuation byte's allowed range,
  std::uint8_t high_ = 0xBF; // narrowed after E0, ED, F0 and F4 leads
  bool invalid_ = false;
};

// True when `text` is complete, valid UTF-8.
[[nodiscard]] bool is_valid_utf8(std::string_view text);

}  // namespace sluice::proto::ws
