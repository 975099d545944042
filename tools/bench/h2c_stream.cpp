#include "h2c_stream.hpp"

#include <algorithm>

namespace sluice::bench {

namespace {

constexpr std::uint8_t kData = 0, kHeaders = 1, kRstStream = 3, kSettings = 4, kPing = 6, kGoaway = 7;
constexpr std::uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8, kPriority = 0x20;
constexpr std::uint32_t kLargestWindow = 0x7fffffff;

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
  std::string out;
  const std::size_t n = payload.size();
  out += {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n), static_cast<char>(type),
          static_cast<char>(flags)};
  put32(out, stream);
  out.append(payload);
  return out;
}

// The preface, SETTINGS and the connection's window.
std::string preface() {
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  std::string settings = {0, 4};  // SETTINGS_INITIAL_WINDOW_SIZE
  put32(settings, kLargestWindow);
  out += frame(kSettings, 0, 0, settings);
  std::string increment;
  put32(increment, kLargestWindow - 65535);
  out += frame(8, 0, 0, increment);  // WINDOW_UPDATE: the connection's window as large
  return out;
}

// HPACK: a literal field not indexed, its name a new name or the static
// table's entry `name_index`. Names and values are shorter than 127 bytes.
void literal(std::string& block, std::uint8_t name_index, std::string_view name, std::string_view value) {
  block.push_back(static_cast<char>(name_index));
  if (name_index == 0) {
    block.push_back(static_cast<char>(name.size()));
    block.append(name);
  }
  block.push_back(static_cast<char>(value.size()));
  block.append(value);
}

}  // namespace

std::string H2cStream::open(std::string_view path) {
  // :method GET and :scheme http indexed; :path and :authority literal.
  std::string block = "\x82\x86";
  literal(block, 4, {}, path);
  literal(block, 1, {}, "127.0.0.1");
  return preface() + frame(kHeaders, kEndStream | kEndHeaders, 1, block);
}

std::string H2cStream::open_websocket(std::string_view path) {
  // :method CONNECT (the static table's :method, a literal value), :scheme
  // http indexed, the rest literal; the stream stays open for the
  // reader's pongs.
  std::string block;
  literal(block, 2, {}, "CONNECT");
  block += "\x86";
  literal(block, 4, {}, path);
  literal(block, 1, {}, "127.0.0.1");
  literal(block, 0, ":protocol", "websocket");
  literal(block, 0, "sec-websocket-version", "13");
  return preface() + frame(kHeaders, kEndHeaders, 1, block);
}

std::string H2cStream::data(std::string_view payload) { return frame(kData, 0, 1, payload); }

bool H2cStream::feed(std::string_view bytes, std::string& body, std::string& replies) {
  in_.append(bytes);
  std::size_t at = 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(in_[at + i])); };
  while (in_.size() - at >= 9) {
    const std::size_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
    if (in_.size() - at < 9 + length) break;
    const std::uint32_t stream = ((byte(5) << 24) | (byte(6) << 16) | (byte(7) << 8) | byte(8)) & 0x7fffffffu;
    const auto type = static_cast<std::uint8_t>(byte(3));
    const auto flags = static_cast<std::uint8_t>(byte(4));
    if (!take_frame(type, flags, stream, std::string_view(in_).substr(at + 9, length), body, replies)) return false;
    at += 9 + length;
  }
  in_.erase(0, at);
  return true;
}

bool H2cStream::take_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload,
                           std::string& body, std::string& replies) {
  switch (type) {
    case kData:
      if (stream != 1) return true;
      if ((flags & kPadded) != 0 && !payload.empty()) {
        const std::size_t pad = static_cast<unsigned char>(payload[0]);
        payload = payload.substr(1, payload.size() - 1 - std::min(pad, payload.size() - 1));
      }
      body.append(payload);
      if ((flags & kEndStream) != 0) ended_ = true;
      return true;
    case kHeaders: {
      if (stream != 1) return true;
      if ((flags & kPadded) != 0 || (flags & kPriority) != 0) {
        error_ = "a HEADERS frame with padding or priority";
        return false;
      }
      // sluiced's first field is :status from the static table (0x88 is 200).
      if (payload.empty() || static_cast<unsigned char>(payload[0]) != 0x88) {
        error_ = "the stream was not answered 200";
        return false;
      }
      return true;
    }
    case kSettings:
      if ((flags & kAck) == 0) replies += frame(kSettings, kAck, 0, {});
      return true;
    case kPing:
      if ((flags & kAck) == 0) replies += frame(kPing, kAck, 0, payload);
      return true;
    case kRstStream:
      if (stream != 1) return true;
      ended_ = true;
      return true;
    case kGoaway:
      ended_ = true;
      return true;
    default:
      return true;
  }
}

}  // namespace sluice::bench
