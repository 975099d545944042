#include "h2c_stream.hpp"

#include <algorithm>

namespace sluice::bench {

namespace {

constexpr std::uint8_t kData = 0, kHeaders = 1, kRstStream = 3, kSettings = 4, kPing = 6, kGoaway = 7,
                       kWindowUpdate = 8;
constexpr std::uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8, kPriority = 0x20;
constexpr std::uint32_t kLargestWindow = 0x7fffffff;
// A window is opened again once this much of it was used: far from closed,
// so the server never waits for it.
constexpr std::uint64_t kReopenAfter = kLargestWindow / 2;

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

void put_frame(std::string& out, std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
               std::string_view payload) {
  const std::size_t n = payload.size();
  out += {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n), static_cast<char>(type),
          static_cast<char>(flags)};
  put32(out, stream);
  out.append(payload);
}

void put_window_update(std::string& out, std::uint32_t stream, std::uint64_t increment) {
  std::string payload;
  put32(payload, static_cast<std::uint32_t>(increment));
  put_frame(out, kWindowUpdate, 0, stream, payload);
}

// Appends stream 1's DATA to one string: the one-stream form of feed().
class BodySink final : public H2cStream::Sink {
 public:
  explicit BodySink(std::string& body) : body_(body) {}
  void on_head(std::size_t) override {}
  void on_data(std::size_t, std::string_view data) override { body_.append(data); }
  void on_end(std::size_t) override {}

 private:
  std::string& body_;
};

// The preface, SETTINGS and the connection's window.
std::string preface() {
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  std::string settings = {0, 4};  // SETTINGS_INITIAL_WINDOW_SIZE
  put32(settings, kLargestWindow);
  put_frame(out, kSettings, 0, 0, settings);
  put_window_update(out, 0, kLargestWindow - 65535);  // the connection's window as large
  return out;
}

// HPACK (RFC 7541 §5.2): a string's length, not Huffman-coded, as an
// integer with a 7-bit prefix (§5.1): below 127 in the one byte, else 127
// there and the rest in 7-bit groups, low first, each but the last with
// its top bit set (a path with a token in its query is longer than 127).
void string_length(std::string& block, std::size_t length) {
  if (length < 127) {
    block.push_back(static_cast<char>(length));
    return;
  }
  block.push_back(static_cast<char>(127));
  for (length -= 127; length >= 128; length >>= 7) block.push_back(static_cast<char>(0x80 | (length & 0x7f)));
  block.push_back(static_cast<char>(length));
}

// HPACK: a literal field not indexed, its name a new name or the static
// table's entry `name_index` (below 15, the 4-bit prefix).
void literal(std::string& block, std::uint8_t name_index, std::string_view name, std::string_view value) {
  block.push_back(static_cast<char>(name_index));
  if (name_index == 0) {
    string_length(block, name.size());
    block.append(name);
  }
  string_length(block, value.size());
  block.append(value);
}

}  // namespace

H2cStream::H2cStream(std::size_t streams)
    : unconsumed_(std::max<std::size_t>(1, streams)), ended_(std::max<std::size_t>(1, streams)) {}

std::string H2cStream::open(std::string_view path, std::size_t streams, bool over_tls) {
  std::string out = preface();
  // HPACK: :method GET and :scheme http (or https) indexed; :path and
  // :authority literal, not indexed (so every request is the same bytes).
  std::string block = over_tls ? "\x82\x87" : "\x82\x86";
  literal(block, 4, {}, path);
  literal(block, 1, {}, "127.0.0.1");
  for (std::size_t i = 0; i < std::max<std::size_t>(1, streams); ++i) {
    put_frame(out, kHeaders, kEndStream | kEndHeaders, static_cast<std::uint32_t>(2 * i + 1), block);
  }
  return out;
}

std::string H2cStream::open_websocket(std::string_view path, bool over_tls) {
  // :method CONNECT (the static table's :method, a literal value), :scheme
  // http (or https) indexed, the rest literal; the stream stays open for
  // the reader's pongs.
  std::string block;
  literal(block, 2, {}, "CONNECT");
  block += over_tls ? "\x87" : "\x86";
  literal(block, 4, {}, path);
  literal(block, 1, {}, "127.0.0.1");
  literal(block, 0, ":protocol", "websocket");
  literal(block, 0, "sec-websocket-version", "13");
  std::string out = preface();
  put_frame(out, kHeaders, kEndHeaders, 1, block);
  return out;
}

std::string H2cStream::data(std::string_view payload) {
  std::string out;
  put_frame(out, kData, 0, 1, payload);
  return out;
}

bool H2cStream::feed(std::string_view bytes, std::string& body, std::string& replies) {
  BodySink sink(body);
  return feed(bytes, sink, replies);
}

bool H2cStream::feed(std::string_view bytes, Sink& sink, std::string& replies) {
  // Whole frames are taken from the bytes as they are; only a frame cut by
  // the read is kept for the next.
  std::string_view data = bytes;
  if (!in_.empty()) {
    in_.append(bytes);
    data = in_;
  }
  std::size_t at = 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(data[at + i])); };
  bool ok = true;
  while (data.size() - at >= 9) {
    const std::size_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
    if (data.size() - at < 9 + length) break;
    const std::uint32_t stream = ((byte(5) << 24) | (byte(6) << 16) | (byte(7) << 8) | byte(8)) & 0x7fffffffu;
    const auto type = static_cast<std::uint8_t>(byte(3));
    const auto flags = static_cast<std::uint8_t>(byte(4));
    if (!take_frame(type, flags, stream, data.substr(at + 9, length), sink, replies)) {
      ok = false;
      break;
    }
    at += 9 + length;
  }
  if (in_.empty()) {
    in_.assign(data.substr(at));
  } else {
    in_.erase(0, at);
  }
  return ok;
}

std::size_t H2cStream::index_of(std::uint32_t stream) const {
  if (stream % 2 == 0 || (stream - 1) / 2 >= unconsumed_.size()) return std::string::npos;
  return (stream - 1) / 2;
}

void H2cStream::take_window(std::size_t index, std::size_t length, std::string& replies) {
  connection_unconsumed_ += length;
  if (connection_unconsumed_ >= kReopenAfter) {
    put_window_update(replies, 0, connection_unconsumed_);
    connection_unconsumed_ = 0;
  }
  std::uint64_t& stream = unconsumed_[index];
  stream += length;
  if (stream >= kReopenAfter && !ended_[index]) {
    put_window_update(replies, static_cast<std::uint32_t>(2 * index + 1), stream);
    stream = 0;
  }
}

void H2cStream::end_stream(std::size_t index, Sink& sink) {
  if (ended_[index]) return;
  ended_[index] = true;
  ++ended_streams_;
  sink.on_end(index);
}

bool H2cStream::take_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload,
                           Sink& sink, std::string& replies) {
  const std::size_t index = index_of(stream);
  switch (type) {
    case kData:
      if (index == std::string::npos) return true;
      take_window(index, payload.size(), replies);
      if ((flags & kPadded) != 0 && !payload.empty()) {
        const std::size_t pad = static_cast<unsigned char>(payload[0]);
        payload = payload.substr(1, payload.size() - 1 - std::min(pad, payload.size() - 1));
      }
      if (!payload.empty()) sink.on_data(index, payload);
      if ((flags & kEndStream) != 0) end_stream(index, sink);
      return true;
    case kHeaders: {
      if (index == std::string::npos) return true;
      if ((flags & kPadded) != 0 || (flags & kPriority) != 0) {
        error_ = "a HEADERS frame with padding or priority";
        return false;
      }
      // sluiced's first field is :status from the static table (0x88 is 200).
      if (payload.empty() || static_cast<unsigned char>(payload[0]) != 0x88) {
        error_ = "stream " + std::to_string(stream) + " was not answered 200";
        return false;
      }
      sink.on_head(index);
      if ((flags & kEndStream) != 0) end_stream(index, sink);
      return true;
    }
    case kSettings:
      if ((flags & kAck) == 0) put_frame(replies, kSettings, kAck, 0, {});
      return true;
    case kPing:
      if ((flags & kAck) == 0) put_frame(replies, kPing, kAck, 0, payload);
      return true;
    case kRstStream:
      if (index != std::string::npos) end_stream(index, sink);
      return true;
    case kGoaway:
      goaway_ = true;
      return true;
    default:
      return true;
  }
}

}  // namespace sluice::bench
