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

// What a server with HTTP/2 turned off answers a client that opened with
// the preface anyway: its own (empty) SETTINGS, as every HTTP/2 server
// first sends, then GOAWAY with HTTP_1_1_REQUIRED and the key to turn on as
// debug data. An HTTP/1.1 400 would read to that client as a broken frame.
inline constexpr std::string_view kH2Http11Required{
    "\x00\x00\x00\x04\x00\x00\x00\x00\x00"                         // SETTINGS, no settings, stream 0
    "\x00\x00\x14\x07\x00\x00\x00\x00\x00"                         // GOAWAY, 20 bytes, stream 0
    "\x00\x00\x00\x00"                                             // last stream: none was processed
    "\x00\x00\x00\x0d"                                             // HTTP_1_1_REQUIRED
    "h2.enabled=0",
    9 + 9 + 20};
// The same on the admin listener, which speaks HTTP/1.1 only (its API's
// routes are HTTP/1.1's), whatever h2.enabled says; its debug data names
// the listener.
inline constexpr std::string_view kH2AdminHttp11Only{
    "\x00\x00\x00\x04\x00\x00\x00\x00\x00"                         // SETTINGS, no settings, stream 0
    "\x00\x00\x14\x07\x00\x00\x00\x00\x00"                         // GOAWAY, 20 bytes, stream 0
    "\x00\x00\x00\x00"                                             // last stream: none was processed
    "\x00\x00\x00\x0d"                                             // HTTP_1_1_REQUIRED
    "admin.listen",
    9 + 9 + 20};

}  // namespace sluice::transport
