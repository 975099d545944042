#include "ws_frame_scanner.hpp"

#include <algorithm>

namespace sluice::bench {

namespace {

constexpr std::uint8_t kContinuation = 0x0;
constexpr std::uint8_t kText = 0x1;
constexpr std::uint8_t kBinary = 0x2;
constexpr std::uint8_t kClose = 0x8;
constexpr std::uint8_t kPing = 0x9;
constexpr std::uint8_t kPong = 0xA;
constexpr std::uint64_t kMaxControl = 125;

std::uint64_t big_endian(std::string_view bytes) {
  std::uint64_t v = 0;
  for (const char c : bytes) v = v << 8 | static_cast<std::uint8_t>(c);
  return v;
}

bool known_opcode(std::uint8_t op) { return op <= kBinary || (op >= kClose && op <= kPong); }

}  // namespace

WsScanStatus WsFrameScanner::feed(std::string_view bytes, WsFrameHandler& handler) {
  if (status_ != WsScanStatus::ok) return status_;
  // A cut frame still short after this read keeps everything in carry_.
  if (!carry_.empty() && (!finish_carry(bytes, handler) || !carry_.empty())) return status_;
  const std::size_t used = scan(bytes, handler);
  if (status_ == WsScanStatus::ok) carry_.assign(bytes.substr(used));
  return status_;
}

int WsFrameScanner::parse_header(std::string_view in, Header& h) {
  if (in.size() < 2) return 0;
  const auto b0 = static_cast<std::uint8_t>(in[0]);
  const auto b1 = static_cast<std::uint8_t>(in[1]);
  h.fin = (b0 & 0x80) != 0;
  h.opcode = b0 & 0x0F;
  if ((b0 & 0x70) != 0) return refuse(WsScanStatus::bad_frame, "RSV bit set without an extension");
  if ((b1 & 0x80) != 0) return refuse(WsScanStatus::bad_frame, "masked frame from the server");
  if (!known_opcode(h.opcode)) return refuse(WsScanStatus::bad_frame, "unknown opcode");
  const std::uint8_t len7 = b1 & 0x7F;
  h.head_size = len7 == 127 ? 10 : len7 == 126 ? 4 : 2;
  if (in.size() < h.head_size) return 0;
  h.size = len7 < 126 ? len7 : big_endian(in.substr(2, h.head_size - 2));
  if ((len7 == 126 && h.size < 126) || (len7 == 127 && (h.size <= 0xFFFF || h.size >> 63 != 0))) {
    return refuse(WsScanStatus::bad_frame, "length not in its shortest form");
  }
  if (h.opcode >= kClose && (!h.fin || h.size > kMaxControl)) {
    return refuse(WsScanStatus::bad_frame, "fragmented or oversized control frame");
  }
  if (h.size > max_message_) return refuse(WsScanStatus::too_large, "frame past the message limit");
  return static_cast<int>(h.head_size);
}

// Returns how many bytes of whole frames were used; the rest is a cut frame.
std::size_t WsFrameScanner::scan(std::string_view bytes, WsFrameHandler& handler) {
  std::size_t pos = 0;
  Header h;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  while (status_ == WsScanStatus::ok && pos < bytes.size()) {
    // The usual frame first: a whole unmasked text or binary message with a
    // 7-bit length (b1 < 126 also says the mask bit is clear), so a stream
    // of small events costs two byte loads and a call per frame.
    if (pos + 2 <= bytes.size() && !in_message_ && (data[pos] == 0x81 || data[pos] == 0x82) && data[pos + 1] < 126 &&
        data[pos + 1] <= max_message_) {
      const std::size_t size = data[pos + 1];
      if (bytes.size() - pos - 2 < size) break;
      handler.on_message(data[pos] == 0x81, bytes.substr(pos + 2, size));
      pos += 2 + size;
      continue;
    }
    const int head = parse_header(bytes.substr(pos), h);
    if (head <= 0 || bytes.size() - pos - h.head_size < h.size) break;
    dispatch(h, bytes.substr(pos + h.head_size, h.size), handler);
    pos += h.head_size + h.size;
  }
  return pos;
}

// Completes the frame in carry_ from the front of `bytes`. The header is
// taken a byte at a time (it is at most 14), then the payload in one append.
bool WsFrameScanner::finish_carry(std::string_view& bytes, WsFrameHandler& handler) {
  Header h;
  int head = 0;
  while ((head = parse_header(carry_, h)) == 0 && !bytes.empty()) {
    carry_.push_back(bytes.front());
    bytes.remove_prefix(1);
  }
  if (head <= 0) return status_ == WsScanStatus::ok;
  const std::size_t total = h.head_size + h.size;
  const std::size_t take = std::min(total - carry_.size(), bytes.size());
  carry_.append(bytes.substr(0, take));
  bytes.remove_prefix(take);
  if (carry_.size() < total) return true;
  dispatch(h, std::string_view(carry_).substr(h.head_size), handler);
  carry_.clear();
  return status_ == WsScanStatus::ok;
}

void WsFrameScanner::dispatch(const Header& h, std::string_view payload, WsFrameHandler& handler) {
  switch (h.opcode) {
    case kPing: return handler.on_ping(payload);
    case kPong: return handler.on_pong(payload);
    case kClose: return take_close(payload, handler);
    default: return take_data(h, payload, handler);
  }
}

void WsFrameScanner::take_data(const Header& h, std::string_view payload, WsFrameHandler& handler) {
  if ((h.opcode == kContinuation) != in_message_) {
    return fail(WsScanStatus::bad_frame,
                in_message_ ? "new message inside a fragmented one" : "continuation outside a message");
  }
  if (h.opcode != kContinuation) message_text_ = h.opcode == kText;
  if (h.fin && !in_message_) return handler.on_message(message_text_, payload);
  if (message_.size() + payload.size() > max_message_) return fail(WsScanStatus::too_large, "message past the limit");
  message_.append(payload);
  in_message_ = !h.fin;
  if (in_message_) return;
  handler.on_message(message_text_, message_);
  message_.clear();
}

void WsFrameScanner::take_close(std::string_view payload, WsFrameHandler& handler) {
  if (payload.size() == 1) return fail(WsScanStatus::bad_frame, "close frame of one byte");
  status_ = WsScanStatus::closed;
  const auto code = payload.empty() ? std::uint16_t{1005} : static_cast<std::uint16_t>(big_endian(payload.substr(0, 2)));
  handler.on_close(code, payload.empty() ? payload : payload.substr(2));
}

void WsFrameScanner::fail(WsScanStatus why, const char* what) {
  status_ = why;
  error_ = what;
}

int WsFrameScanner::refuse(WsScanStatus why, const char* what) {
  fail(why, what);
  return -1;
}

}  // namespace sluice::bench
