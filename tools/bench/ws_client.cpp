#include "ws_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "clock.hpp"
#include "net.hpp"
#include "buf/string_sink.hpp"
#include "proto/ws_handshake.hpp"

namespace sluice::bench {

namespace {

namespace ws = proto::ws;

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c;
  return out;
}

// Whether the comma list `list` holds `token` (lowercase), ignoring case.
bool has_token(std::string_view list, std::string_view token) {
  const std::string lower = lowercase(list);
  std::string_view rest = lower;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == token) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}

bool wait_readable(int fd, std::uint64_t deadline) {
  const std::uint64_t now = now_ns();
  if (now >= deadline) return false;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>((deadline - now) / kNsPerMs) + 1) > 0;
}

// Reads the answer head into `in`; the parsed head in `head`. Empty or why
// not. Over TLS the rest of the head may already wait in OpenSSL, which
// the socket does not say: that is read without waiting.
std::string read_answer(Channel& channel, std::uint64_t deadline, std::string& in, ReplyHead& head) {
  char chunk[4096];
  while (channel.buffered() || wait_readable(channel.fd(), deadline)) {
    const ssize_t n = channel.read(chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "connection closed before the upgrade answer";
    in.append(chunk, static_cast<std::size_t>(n));
    const HeadStatus status = parse_reply_head(in, head);
    if (status == HeadStatus::error) return "malformed upgrade answer";
    if (status == HeadStatus::ok) return {};
  }
  return "no upgrade answer in time";
}

}  // namespace

bool make_upgrade_request(std::string_view path, std::string& request, std::string& key,
                          std::string_view last_event_id) {
  char text[ws::kKeySize + 1];
  if (!ws::make_client_key(text)) return false;
  key = text;
  request = "GET " + std::string(path) + " HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n";
  if (!last_event_id.empty()) request += "Last-Event-ID: " + std::string(last_event_id) + "\r\n";
  request += "\r\n";
  return true;
}

std::string check_upgrade(std::string_view text, const ReplyHead& head, std::string_view key) {
  if (head.status != 101) return "upgrade refused: " + std::string(text.substr(0, text.find('\r')));
  if (lowercase(header_value(text, "upgrade")) != "websocket") return "101 without Upgrade: websocket";
  if (!has_token(header_value(text, "connection"), "upgrade")) return "101 without Connection: Upgrade";
  if (!ws::verify_accept(key, header_value(text, "sec-websocket-accept"))) return "wrong Sec-WebSocket-Accept";
  if (!header_value(text, "sec-websocket-extensions").empty()) return "an extension that was not offered";
  return {};
}

WsConnection ws_connect(const io::Endpoint& server, std::string_view path, std::uint64_t deadline_ns,
                        int receive_buffer) {
  Channel clear;  // holds nothing past the call: in clear the socket is all
  return ws_connect(clear, nullptr, server, path, deadline_ns, receive_buffer);
}

WsConnection ws_connect(Channel& channel, const TlsClient* tls, const io::Endpoint& server, std::string_view path,
                        std::uint64_t deadline_ns, int receive_buffer) {
  WsConnection c;
  std::string request;
  std::string key;
  if (!make_upgrade_request(path, request, key)) {
    c.error = "no entropy for a key";
    return c;
  }
  c.fd = dial(server, receive_buffer);
  if (c.fd < 0) {
    c.error = "cannot connect";
  } else if (c.error = channel.open(c.fd, tls); c.error.empty() && !channel.write_all(request)) {
    c.error = "cannot send the upgrade request";
  } else if (c.error.empty()) {
    ReplyHead head;
    c.error = read_answer(channel, deadline_ns, c.leftover, head);
    if (c.error.empty()) c.error = check_upgrade(c.leftover, head, key);
    if (c.error.empty()) c.leftover.erase(0, head.head_size);
  }
  if (!c.error.empty() && c.fd >= 0) ::close(c.fd);
  if (!c.error.empty()) c.fd = -1;
  return c;
}

bool append_masked(std::string& out, ws::Opcode op, std::string_view payload) {
  ws::MaskKey mask;
  buf::StringSink sink(out);
  return ws::make_mask_key(mask) &&
         ws::encode_masked_frame(op, true, false, std::span<const char>(payload.data(), payload.size()), mask, sink);
}

bool append_close(std::string& out, std::uint16_t code) {
  ws::ClosePayload payload;
  return ws::make_close_payload(static_cast<ws::CloseCode>(code), "", payload) &&
         append_masked(out, ws::Opcode::close, std::string_view(payload.bytes.data(), payload.size));
}

}  // namespace sluice::bench
