#include "event_line.hpp"

#include <optional>

#include <nlohmann/json.hpp>

#include "proto/base64.hpp"
#include "buf/string_sink.hpp"
#include "proto/utf8.hpp"

namespace sluice::cli {

namespace {

const char* kind_name(client::EventKind kind) {
  switch (kind) {
    case client::EventKind::message: return "message";
    case client::EventKind::dropped: return "dropped";
    case client::EventKind::reset: return "reset";
    case client::EventKind::ack: return "ack";
  }
  return "unknown";
}

void append_hex(std::string& out, unsigned char byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.append("\\x").push_back(kHex[byte >> 4]);
  out.push_back(kHex[byte & 0xF]);
}

// The length of the UTF-8 sequence that starts at data[at], or 0 when the
// bytes there are not one.
std::size_t utf8_sequence_at(std::string_view data, std::size_t at) {
  const auto lead = static_cast<unsigned char>(data[at]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || at + length > data.size()) return 0;
  proto::ws::Utf8Validator check;
  return check.feed(data.data() + at, length) == proto::ws::Utf8Status::valid_complete ? length : 0;
}

// The code point of a three-byte UTF-8 sequence when it is a bidi
// embedding, override or isolate control (U+202A..U+202E, U+2066..U+2069):
// printed as they are, they make a line read in another order than its
// bytes.
std::optional<unsigned> bidi_control(std::string_view sequence) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(sequence[k])); };
  const unsigned point = (byte(0) & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
  const bool embedding = point >= 0x202A && point <= 0x202E;
  const bool isolate = point >= 0x2066 && point <= 0x2069;
  return embedding || isolate ? std::optional<unsigned>(point) : std::nullopt;
}

void append_code_point(std::string& out, unsigned point) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.append("\\u");
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(point >> shift) & 0xF]);
}

// Text is printed as the UTF-8 it is, but for what a terminal acts on: the
// C0 controls and DEL; the C1 controls, U+0080..U+009F (C2 80..C2 9F in
// UTF-8), which some terminals act on as they do on ESC sequences (U+009B
// is CSI); and any byte that is not part of a UTF-8 sequence, which a
// terminal in an 8-bit locale reads as a C1 control itself. The bidi
// embedding, override and isolate controls are written \uXXXX.
void append_escaped(std::string& out, std::string_view data) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    const char c = data[i];
    const auto byte = static_cast<unsigned char>(c);
    const std::size_t sequence = byte >= 0x80 ? utf8_sequence_at(data, i) : 0;
    const bool c1 = sequence == 2 && byte == 0xC2 && static_cast<unsigned char>(data[i + 1]) < 0xA0;
    if (c == '\\') {
      out.append("\\\\");
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\r') {
      out.append("\\r");
    } else if (byte < 0x20 || byte == 0x7F) {
      append_hex(out, byte);
    } else if (c1) {
      append_hex(out, byte);
      append_hex(out, static_cast<unsigned char>(data[++i]));
    } else if (const auto bidi = sequence == 3 ? bidi_control(data.substr(i, 3)) : std::nullopt) {
      append_code_point(out, *bidi);
      i += 2;
    } else if (byte >= 0x80 && sequence == 0) {
      append_hex(out, byte);
    } else if (sequence > 0) {
      out.append(data.substr(i, sequence));
      i += sequence - 1;
    } else {
      out.push_back(c);
    }
  }
}

std::string base64(std::string_view bytes) {
  std::string out;
  buf::StringSink sink(out);
  (void)proto::base64_encode(sink, bytes);  // a StringSink never refuses
  return out;
}

}  // namespace

std::string escaped(std::string_view text) {
  std::string out;
  append_escaped(out, text);
  return out;
}

void format_plain(const client::Event& event, bool with_topic, std::string& line) {
  line.clear();
  if (with_topic) {
    append_escaped(line, event.topic.empty() ? "-" : event.topic);
    line.push_back(' ');
  }
  append_escaped(line, event.id.empty() ? "-" : event.id);
  line.push_back(' ');
  append_escaped(line, event.type.empty() ? "message" : event.type);
  line.push_back(' ');
  append_escaped(line, event.data);
}

void format_json(const client::Event& event, std::string& line) {
  nlohmann::json object = {{"kind", kind_name(event.kind)}, {"topic", event.topic}, {"id", event.id},
                           {"event", event.type}};
  if (proto::ws::is_valid_utf8(event.data)) {
    object["data"] = event.data;
  } else {
    object["data_b64"] = base64(event.data);
  }
  if (event.kind == client::EventKind::dropped) object["dropped"] = event.dropped;
  if (event.kind == client::EventKind::ack) {
    object["req"] = event.req;
    object["ok"] = event.ok;
  }
  // Only data is checked above; a malformed name or id is shown with U+FFFD rather than refused.
  // Every character past ASCII as \uXXXX: the C1 controls (U+0080 to
  // U+009F, CSI among them) reach no terminal that shows the line.
  line = object.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace sluice::cli
