// permessage-deflate on a microcontroller: declined. Its inflate window alone
// (up to 32 KiB per connection, plus zlib's state) is many times the memory
// a small device gives a whole connection, and there is no zlib to link. So
// every offer is answered without the extension (RFC 7692 lets a server do
// that; the connection runs uncompressed), and an Inflater or Deflater is
// never ok(), which makes WebSocket decoders refuse set_deflate().
#include "proto/ws_deflate.hpp"

namespace sluice::proto::ws {

namespace detail {
void InflateStreamDeleter::operator()(z_stream_s*) const {}
void DeflateStreamDeleter::operator()(z_stream_s*) const {}
}  // namespace detail

DeflateParams negotiate_deflate(std::string_view, int) { return {}; }

bool write_deflate_response(const DeflateParams&, buf::Sink&) { return false; }

Inflater::Inflater(int, bool no_context_takeover, std::size_t max_message_size, buf::MemoryAccount* account)
    : memory_(account), limit_(max_message_size), no_context_takeover_(no_context_takeover) {}

InflateResult Inflater::inflate(std::span<const char>, std::span<char>) { return {InflateStatus::corrupt}; }

InflateResult Inflater::finish(std::span<char>) { return {InflateStatus::corrupt}; }

Deflater::Deflater(int, int) {}

DeflateOutput Deflater::compress(std::span<const char>) { return {}; }

}  // namespace sluice::proto::ws
