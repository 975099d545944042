// Owns: telling, from the first bytes of a clear-text connection, whether
// the client speaks HTTP/2 with prior knowledge (h2c: it opens with the
// 24-byte connection preface) or HTTP/1.x. Over TLS, ALPN says it instead.
#pragma once

#include <cstdint>
#include <string_view>

namespace sluice::transport {

inline constexpr std::string_view kH2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum class PrefaceMatch : std::uint8_t {
  h2,         // the whole preface is there: hand the bytes (preface included) to H2Session
  http1,      // these bytes cannot begin the preface: HTTP/1.x
  need_more,  // a prefix of the preface so far
};

[[nodiscard]] PrefaceMatch match_h2_preface(std::string_view first_bytes);

}  // namespace sluice::transport
