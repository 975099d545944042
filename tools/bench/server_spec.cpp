#include "server_spec.hpp"

#include <charconv>

namespace sluice::bench {

namespace {

// "/K" after h2 or h2c: K in 1..most. Empty on success.
std::string parse_streams(std::string_view text, std::size_t most, std::size_t& streams) {
  if (text.empty()) return {};
  std::size_t k = 0;
  const auto [end, ec] = std::from_chars(text.data() + 1, text.data() + text.size(), k);
  if (text[0] != '/' || ec != std::errc{} || end != text.data() + text.size() || k < 1 || k > most) {
    if (most == 1) return "this scenario's reader takes one stream: no /STREAMS_PER_CONNECTION";
    return "streams per connection '" + std::string(text.substr(1)) + "' must be 1.." + std::to_string(most);
  }
  streams = k;
  return {};
}

}  // namespace

std::string parse_server_spec(std::string_view text, bool tls, const Transports& can, ServerSpec& out) {
  out = ServerSpec{.tls = tls};
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    out.name = out.command = std::string(text);
    return {};
  }
  out.name = std::string(text.substr(0, eq));
  out.command = std::string(text.substr(eq + 1));
  const std::size_t at = out.name.find('@');
  if (at == std::string::npos) return {};
  const std::string_view transport = std::string_view(out.name).substr(at + 1);
  const std::string_view base = transport.substr(0, transport.find('/'));
  const std::string_view streams = transport.substr(base.size());
  const std::string where = "'" + out.name + "': ";
  out.transport_named = true;
  if (base == "h1" && streams.empty()) return {};
  const std::string_view h2 = tls ? "h2" : "h2c";
  if (base != h2) {
    if (base == "h2c") return where + "h2c is HTTP/2 in clear text; over TLS it is @h2 (chosen by ALPN)";
    if (base == "h2") return where + "@h2 is HTTP/2 chosen by ALPN over TLS; in clear text it is @h2c (prior knowledge)";
    return where + "the transport after '@' is h1, or " + std::string(h2) + "[/STREAMS_PER_CONNECTION]";
  }
  if (can.h2_streams == 0) return where + "this scenario's readers speak HTTP/1.1 only";
  out.http = HttpVersion::h2;
  if (std::string error = parse_streams(streams, can.h2_streams, out.streams_per_connection); !error.empty()) {
    return where + error;
  }
  return {};
}

std::string transport_name(const ServerSpec& spec) {
  if (spec.http == HttpVersion::http1) return "http/1.1";
  return spec.tls ? "h2" : "h2c";
}

}  // namespace sluice::bench
