// Frames are parsed off the front of the TestClient's buffer only once all
// of a frame's bytes are there, so a read that stops part-way through a
// frame leaves nothing half-consumed.
#include "ws_test_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "io/socket.hpp"
#include "proto/utf8.hpp"
#include "proto/ws_encoder.hpp"
#include "proto/ws_handshake.hpp"
#include "ws_echo_stream.hpp"

namespace sluice::test::ws {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kTail("\x00\x00\xff\xff", 4);
constexpr std::size_t kMaxInflated = std::size_t{64} << 20;  // far past any server limit

std::uint8_t byte_at(const std::string& b, std::size_t i) { return static_cast<std::uint8_t>(b[i]); }

std::chrono::milliseconds left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

void append_length(std::string& out, std::uint64_t length, std::uint8_t mask_bit) {
  if (length < 126) {
    out.push_back(static_cast<char>(mask_bit | length));
    return;
  }
  const int bytes = length <= 0xFFFF ? 2 : 8;
  out.push_back(static_cast<char>(mask_bit | (bytes == 2 ? 126 : 127)));
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
}

// Header and payload sizes of the frame at the front of `b`; false while
// its header is incomplete.
bool frame_sizes(const std::string& b, std::size_t& header, std::uint64_t& payload) {
  if (b.size() < 2) return false;
  const std::uint8_t length = byte_at(b, 1) & 0x7F;
  const std::size_t extra = length == 126 ? 2 : length == 127 ? 8 : 0;
  header = 2 + extra + ((byte_at(b, 1) & 0x80) != 0 ? 4 : 0);
  if (b.size() < header) return false;
  payload = length;
  if (extra > 0) {
    payload = 0;
    for (std::size_t i = 0; i < extra; ++i) payload = (payload << 8) | byte_at(b, 2 + i);
  }
  return true;
}

bool whole_frame(const std::string& b) {
  std::size_t header = 0;
  std::uint64_t payload = 0;
  return frame_sizes(b, header, payload) && b.size() - header >= payload;
}

ServerFrame take_frame(std::string& b) {
  std::size_t header = 0;
  std::uint64_t payload = 0;
  (void)frame_sizes(b, header, payload);
  ServerFrame frame;
  frame.fin = (byte_at(b, 0) & 0x80) != 0;
  frame.rsv = byte_at(b, 0) & (kRsv1 | kRsv2 | kRsv3);
  frame.opcode = byte_at(b, 0) & 0x0F;
  frame.masked = (byte_at(b, 1) & 0x80) != 0;
  frame.payload = b.substr(header, static_cast<std::size_t>(payload));
  if (frame.masked) {
    proto::ws::MaskKey key;
    std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(header - 4), 4, key.begin());
    proto::ws::apply_mask(frame.payload, key);
  }
  b.erase(0, header + static_cast<std::size_t>(payload));
  return frame;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string fresh_key() {
  char key[proto::ws::kKeySize + 1] = {};
  if (!proto::ws::make_client_key(key)) ADD_FAILURE() << "no entropy for a Sec-WebSocket-Key";
  return key;
}

std::string request_text(const UpgradeRequest& r, std::string_view key) {
  std::string text = "GET " + r.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: " + r.upgrade + "\r\n";
  text += "Connection: " + r.connection + "\r\nSec-WebSocket-Version: " + r.version + "\r\n";
  if (r.send_key) text += "Sec-WebSocket-Key: " + std::string(key) + "\r\n";
  if (!r.extensions.empty()) text += "Sec-WebSocket-Extensions: " + r.extensions + "\r\n";
  if (!r.protocols.empty()) text += "Sec-WebSocket-Protocol: " + r.protocols + "\r\n";
  if (!r.origin.empty()) text += "Origin: " + r.origin + "\r\n";
  return text + r.extra_headers + "\r\n";
}

}  // namespace

std::string wire(const WireFrame& frame) {
  std::string out;
  out.push_back(static_cast<char>((frame.fin ? 0x80 : 0) | frame.rsv | (frame.opcode & 0x0F)));
  append_length(out, frame.length.value_or(frame.payload.size()), frame.masked ? 0x80 : 0);
  std::string payload = frame.payload;
  if (frame.masked) {
    proto::ws::MaskKey key{};
    if (!proto::ws::make_mask_key(key)) ADD_FAILURE() << "no entropy for a mask key";
    out.append(reinterpret_cast<const char*>(key.data()), key.size());
    proto::ws::apply_mask(payload, key);
  }
  return out + payload;
}

std::string close_payload(std::uint16_t code, std::string_view reason) {
  std::string out{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
  return out.append(reason);
}

int ServerFrame::close_code() const {
  if (payload.size() < 2) return 1005;
  return (static_cast<std::uint8_t>(payload[0]) << 8) | static_cast<std::uint8_t>(payload[1]);
}

ClientDeflater::ClientDeflater(int window_bits, bool context_takeover)
    : stream_(std::make_unique<z_stream_s>()), context_takeover_(context_takeover) {
  if (deflateInit2(stream_.get(), Z_DEFAULT_COMPRESSION, Z_DEFLATED, -window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    ADD_FAILURE() << "deflateInit2 failed";
  }
}

ClientDeflater::~ClientDeflater() { deflateEnd(stream_.get()); }

std::string ClientDeflater::compress(std::string_view message) {
  std::string out;
  z_stream_s& z = *stream_;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
  z.avail_in = static_cast<uInt>(message.size());
  do {
    char chunk[16384];
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    if (deflate(&z, Z_SYNC_FLUSH) == Z_STREAM_ERROR) ADD_FAILURE() << "deflate failed";
    out.append(chunk, sizeof chunk - z.avail_out);
  } while (z.avail_out == 0);
  if (!out.ends_with(kTail)) ADD_FAILURE() << "a sync flush ends with 00 00 ff ff";
  out.resize(out.size() - kTail.size());
  if (!context_takeover_) deflateReset(&z);
  return out;
}

std::optional<std::string> inflate_message(std::string_view payload) {
  z_stream_s z{};
  if (inflateInit2(&z, -15) != Z_OK) return std::nullopt;
  const std::string input = std::string(payload) + std::string(kTail);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  std::string out;
  int status = Z_OK;
  // A full chunk may leave output pending even when all input is read.
  do {
    char chunk[16384];
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    status = inflate(&z, Z_SYNC_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
  } while (status == Z_OK && (z.avail_in > 0 || z.avail_out == 0) && out.size() < kMaxInflated);
  inflateEnd(&z);
  if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) return std::nullopt;
  return out;
}

std::optional<std::string> UpgradeReply::header(std::string_view name) const {
  const std::string wanted = lower(name) + ":";
  for (std::size_t at = head.find("\r\n"); at != std::string::npos && at + 2 < head.size();) {
    const std::size_t end = head.find("\r\n", at + 2);
    const std::string line = head.substr(at + 2, end - at - 2);
    if (lower(line).starts_with(wanted)) {
      const std::size_t start = line.find_first_not_of(' ', wanted.size());
      return start == std::string::npos ? std::string() : line.substr(start);
    }
    at = end;
  }
  return std::nullopt;
}

// No Nagle: a case that sends a frame in one-byte pieces would otherwise
// wait out a delayed ACK for every piece.
WsTestClient::WsTestClient(std::uint16_t port, int receive_buffer) : socket_(port, receive_buffer) {
  if (socket_.connected()) io::set_nodelay(socket_.fd(), true);
}

UpgradeReply WsTestClient::upgrade(const UpgradeRequest& request, std::chrono::milliseconds limit) {
  const std::string key = request.key.empty() ? fresh_key() : request.key;
  socket_.send(request_text(request, key));
  UpgradeReply reply;
  if (!socket_.read_until_contains("\r\n\r\n", limit)) return reply;
  std::string& b = socket_.buffer();
  const std::size_t end = b.find("\r\n\r\n") + 4;
  reply.head = b.substr(0, end);
  reply.status = reply.head.starts_with("HTTP/1.1 ") ? std::atoi(reply.head.c_str() + 9) : -1;
  b.erase(0, end);
  reply.accept_valid = proto::ws::verify_accept(key, reply.header("Sec-WebSocket-Accept").value_or(""));
  return reply;
}

bool WsTestClient::open(std::string_view path) {
  UpgradeRequest request;
  request.path = std::string(path);
  return upgrade(request).status == 101;
}

std::optional<ServerFrame> WsTestClient::read_frame(std::chrono::milliseconds limit) {
  if (!socket_.read_until(whole_frame, limit)) return std::nullopt;
  return take_frame(socket_.buffer());
}

std::optional<ServerFrame> WsTestClient::read_message(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  std::optional<ServerFrame> frame = read_frame(limit);
  while (frame && frame->opcode == kPing) {
    send({.opcode = kPong, .payload = frame->payload});
    frame = read_frame(left(deadline));
  }
  if (!frame || (frame->opcode != kText && frame->opcode != kBinary)) return std::nullopt;
  if ((frame->rsv & kRsv1) == 0) return frame;
  std::optional<std::string> inflated = inflate_message(frame->payload);
  if (!inflated) return std::nullopt;
  frame->payload = std::move(*inflated);
  return frame;
}

int WsTestClient::read_close(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (std::optional<ServerFrame> frame = read_frame(left(deadline))) {
    if (frame->opcode == kClose) return frame->close_code();
  }
  return 0;
}

bool WsTestClient::hung_up(std::chrono::milliseconds limit) {
  pollfd p{socket_.fd(), POLLRDHUP, 0};
  if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP)) != 0;
}

// Connecting a TCP socket to AF_UNSPEC dissolves its connection with a reset
// at once (Linux tcp_disconnect), and the descriptor stays for the destructor.
void WsTestClient::reset() {
  sockaddr unspecified{};
  unspecified.sa_family = AF_UNSPEC;
  ::connect(socket_.fd(), &unspecified, sizeof unspecified);
}

namespace {

std::string describe(const std::string& bytes) {
  if (bytes.size() <= 40) return "\"" + bytes + "\"";
  return std::to_string(bytes.size()) + " bytes";
}

// What is wrong with `frame` as the reply `want`; empty when nothing is.
std::string mismatch(const ServerFrame& frame, const Reply& want) {
  if (frame.masked) return "the server masked a frame";
  if (frame.opcode != want.opcode) {
    const std::string got = frame.opcode == kClose
                                ? "close " + std::to_string(frame.close_code()) + " " +
                                      describe(frame.payload.substr(std::min<std::size_t>(2, frame.payload.size())))
                                : "opcode " + std::to_string(frame.opcode) + " " + describe(frame.payload);
    return got + ", want opcode " + std::to_string(want.opcode);
  }
  if (!frame.fin) return "a fragmented reply";
  if (frame.rsv != (want.compressed ? kRsv1 : 0)) return "RSV bits " + std::to_string(frame.rsv);
  if (want.opcode == kClose) {
    const std::string_view reason =
        std::string_view(frame.payload).substr(std::min<std::size_t>(2, frame.payload.size()));
    if (frame.payload.size() == 1 || !proto::ws::is_valid_utf8(reason)) return "a malformed close payload";
    if (frame.close_code() != want.close_code) {
      return "close code " + std::to_string(frame.close_code()) + ", want " + std::to_string(want.close_code) +
             " (reason \"" + std::string(reason) + "\")";
    }
    return {};
  }
  std::optional<std::string> payload = frame.payload;
  if (want.compressed) payload = inflate_message(frame.payload);
  if (!payload) return "a compressed payload that does not inflate";
  if (*payload != want.payload) return "payload " + describe(*payload) + ", want " + describe(want.payload);
  return {};
}

testing::AssertionResult check_upgrade(const UpgradeReply& reply, const Exchange& e) {
  if (reply.status != e.status) {
    return testing::AssertionFailure() << "status " << reply.status << ", want " << e.status << "\n" << reply.head;
  }
  if (reply.status == 101 && !reply.accept_valid) return testing::AssertionFailure() << "a wrong Sec-WebSocket-Accept";
  for (const ExpectedHeader& h : e.headers) {
    const std::optional<std::string> value = reply.header(h.name);
    if (h.value.empty() ? value.has_value() : value != h.value) {
      return testing::AssertionFailure() << h.name << ": \"" << value.value_or("(absent)") << "\", want \""
                                         << (h.value.empty() ? "(absent)" : h.value) << "\"";
    }
  }
  return testing::AssertionSuccess();
}

testing::AssertionResult check_replies(WsTestClient& client, const std::vector<Reply>& replies) {
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const std::optional<ServerFrame> frame = client.read_frame();
    if (!frame) return testing::AssertionFailure() << "reply " << i << " never came (EOF or timeout)";
    if (const std::string why = mismatch(*frame, replies[i]); !why.empty()) {
      return testing::AssertionFailure() << "reply " << i << ": " << why;
    }
  }
  return testing::AssertionSuccess();
}

// A pool of 8 MiB: room for the largest echo, and quick to set up for
// every group.
server::Config conformance_config() {
  server::Config config;
  config.pool = {.block_count = 2048, .block_size = 4096, .reserve = 256};
  config.ws.max_message = static_cast<std::int64_t>(kMaxMessage);
  if (server::apply_setting(config, "ws.allowed_origins", kAllowedOrigin) ||
      server::apply_setting(config, "ws.subprotocols", kSubprotocols)) {
    ADD_FAILURE() << "the conformance server's settings are refused";
  }
  return config;
}

std::unique_ptr<RunningServer>& conformance_server() {
  static std::unique_ptr<RunningServer> server;
  return server;
}

}  // namespace

Exchange script(const std::vector<WireFrame>& frames, std::vector<Reply> replies) {
  Exchange e{.replies = std::move(replies)};
  for (const WireFrame& frame : frames) e.sends.push_back(wire(frame));
  return e;
}

Exchange chopped(Exchange e, std::size_t chop) {
  std::string all;
  for (const std::string& bytes : e.sends) all += bytes;
  e.sends.clear();
  for (std::size_t at = 0; at < all.size(); at += chop) e.sends.push_back(all.substr(at, chop));
  return e;
}

void PrintTo(const WsCase& c, std::ostream* out) { *out << c.name; }

testing::AssertionResult run_exchange(std::uint16_t port, const Exchange& e) {
  WsTestClient client(port);
  if (testing::AssertionResult ok = check_upgrade(client.upgrade(e.upgrade), e); !ok) return ok;
  if (e.status == 101) {
    for (const std::string& bytes : e.sends) client.send_raw(bytes);
    if (testing::AssertionResult ok = check_replies(client, e.replies); !ok) return ok;
    // Sent only now, so that each case checks what it was written for; the
    // order of a close behind data is group 7's concern.
    if (e.replies.empty() || e.replies.back().opcode != kClose) {
      client.send({.opcode = kClose, .payload = close_payload(1000)});
      if (testing::AssertionResult ok = check_replies(client, {closing(1000)}); !ok) return ok;
    }
  }
  if (!client.wait_closed()) return testing::AssertionFailure() << "the server left the connection open";
  if (e.status == 101 && !client.socket().buffer().empty()) {
    return testing::AssertionFailure() << "bytes after the close frame: " << describe(client.socket().buffer());
  }
  return testing::AssertionSuccess();
}

void WsConformance::SetUpTestSuite() {
  conformance_server() = std::make_unique<RunningServer>(conformance_config(), add_echo_endpoint);
}

void WsConformance::TearDownTestSuite() { conformance_server().reset(); }

std::uint16_t WsConformance::port() { return conformance_server()->port(); }

}  // namespace sluice::test::ws
