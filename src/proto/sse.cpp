// The encoder writes through a small wrapper that stops at the sink's first
// refusal, so each encoder states the format once and checks once at the
// end; encoded_size() runs the same code against a counting sink, so the
// count and the bytes cannot drift apart.
#include "proto/sse.hpp"

#include <array>
#include <charconv>

#include "buf/fixed_sink.hpp"
#include "line_end.hpp"

namespace sluice::proto::sse {
namespace {

// On the sink's own type: the stack buffer a record that may pack is
// encoded into (buf::FixedSink, final) is written without a virtual call
// per piece, and any other sink through its interface.
template <class SinkType>
class LineWriter {
 public:
  explicit LineWriter(SinkType& sink) : sink_(sink) {}

  void put(std::string_view bytes) {
    if (ok_) ok_ = sink_.append(bytes.data(), bytes.size());  // on SinkType itself, not through Sink
  }
  void line(std::string_view field, std::string_view value) {
    put(field);
    put(value);
    put("\n");
  }
  [[nodiscard]] EncodeStatus status() const { return ok_ ? EncodeStatus::ok : EncodeStatus::sink_full; }

 private:
  SinkType& sink_;
  bool ok_ = true;
};

class CountingSink final : public buf::Sink {
 public:
  using Sink::append;
  bool append(const char*, std::size_t n) override {
    size_ += n;
    return true;
  }
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  std::size_t size_ = 0;
};

// Calls `on_line` once per line of `text`. LF, CRLF and bare CR each end a
// line; a line end at the very end of `text` is followed by an empty line,
// so "a\n" is two lines and the client gets its trailing LF back.
template <class OnLine>
void for_each_line(std::string_view text, OnLine&& on_line) {
  for (;;) {
    const std::size_t end = detail::find_line_end(text);
    on_line(text.substr(0, end));
    if (end == std::string_view::npos) return;
    const bool crlf = text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n';
    text.remove_prefix(end + (crlf ? 2 : 1));
  }
}

template <class SinkType>
void write_retry(std::int64_t retry_ms, LineWriter<SinkType>& out) {
  char digits[20];
  const auto result = std::to_chars(digits, digits + sizeof digits, retry_ms);
  out.line("retry: ", std::string_view(digits, static_cast<std::size_t>(result.ptr - digits)));
}

template <class SinkType>
EncodeStatus encode_into(const Event& event, SinkType& out) {
  if (!valid_field(event.id) || !valid_field(event.event)) return EncodeStatus::invalid_field;
  LineWriter<SinkType> writer(out);
  if (event.retry_ms >= 0) write_retry(event.retry_ms, writer);
  if (!event.event.empty()) writer.line("event: ", event.event);
  if (!event.id.empty()) writer.line("id: ", event.id);
  for_each_line(event.data, [&writer](std::string_view line) { writer.line("data: ", line); });
  writer.put("\n");
  return writer.status();
}

}  // namespace

// A byte loop: find_first_of with a set of three calls memchr over the set
// once per byte of the field, and every SSE record checks its id and name.
bool valid_field(std::string_view id_or_event) {
  for (const char c : id_or_event) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

EncodeStatus encode(const Event& event, buf::Sink& out) { return encode_into(event, out); }

EncodeStatus encode(const Event& event, buf::FixedSink& out) { return encode_into(event, out); }

EncodeStatus encode_comment(std::string_view text, buf::Sink& out) {
  LineWriter<buf::Sink> writer(out);
  for_each_line(text, [&writer](std::string_view line) { writer.line(line.empty() ? ":" : ": ", line); });
  writer.put("\n");
  return writer.status();
}

buf::FrameRef make_event_frame(buf::Pool& pool, buf::Lane lane, const Event& event) {
  buf::FrameBuilder builder(pool, lane);
  if (encode(event, builder) != EncodeStatus::ok) return {};
  return builder.finish();
}

buf::FrameRef make_padding_frame(buf::Pool& pool, buf::Lane lane, std::size_t bytes) {
  std::array<char, kPaddingLine> line;
  line.fill(' ');
  line.front() = ':';
  line.back() = '\n';
  buf::FrameBuilder builder(pool, lane);
  for (std::size_t written = 0; written < bytes; written += line.size()) {
    if (!builder.append(line.data(), line.size())) return {};
  }
  return builder.finish();
}

std::size_t encoded_size(const Event& event) {
  CountingSink counter;
  return encode(event, counter) == EncodeStatus::ok ? counter.size() : 0;
}

}  // namespace sluice::proto::sse
