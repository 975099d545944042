// permessage-deflate: negotiation reads the extension header with a small
// cursor (RFC 6455 §9.1 grammar) and judges each offer on its own, so a bad
// offer only declines itself; the codec wraps zlib raw deflate streams that
// are made once and reset between messages, never re-initialised.
#define ZLIB_CONST
#include "proto/ws_deflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>

namespace sluice::proto::ws {

namespace detail {

void InflateStreamDeleter::operator()(z_stream_s* stream) const {
  inflateEnd(stream);
  delete stream;
}

void DeflateStreamDeleter::operator()(z_stream_s* stream) const {
  deflateEnd(stream);
  delete stream;
}

}  // namespace detail

namespace {

constexpr std::string_view kExtensionName = "permessage-deflate";
constexpr char kTail[4] = {0x00, 0x00, '\xff', '\xff'};

// zlib cannot make a raw deflate stream with a 256-byte window.
int zlib_window_bits(int window_bits) { return std::clamp(window_bits, kMinWindowBits + 1, kMaxWindowBits); }

bool is_tchar(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// One extension parameter. Values are copied (unquoted) into a small buffer:
// the only parameters with values are window sizes of one or two digits.
struct Param {
  std::string_view name;
  bool has_value = false;
  bool value_too_long = false;
  char value[2] = {};
  std::size_t value_size = 0;

  void push_value(char c) {
    if (value_size == sizeof value) {
      value_too_long = true;
      return;
    }
    value[value_size++] = c;
  }
};

// Walks "name; p; q=v, name2; r=\"v\"". Reports the end of an extension by
// next_param() returning false, and a syntax error through failed().
class ExtensionReader {
 public:
  explicit ExtensionReader(std::string_view text) : text_(text) {}

  bool next_extension(std::string_view& name);
  bool next_param(Param& param);
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  [[nodiscard]] bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skip_ows();
  std::string_view token();
  bool read_value(Param& param);
  bool read_quoted(Param& param);
  bool fail() {
    failed_ = true;
    return false;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

void ExtensionReader::skip_ows() {
  while (at(' ') || at('\t')) ++pos_;
}

std::string_view ExtensionReader::token() {
  const std::size_t start = pos_;
  while (pos_ < text_.size() && is_tchar(text_[pos_])) ++pos_;
  return text_.substr(start, pos_ - start);
}

bool ExtensionReader::next_extension(std::string_view& name) {
  skip_ows();
  while (at(',')) {  // HTTP lists may hold empty elements
    ++pos_;
    skip_ows();
  }
  if (pos_ == text_.size()) return false;
  name = token();
  return name.empty() ? fail() : true;
}

bool ExtensionReader::next_param(Param& param) {
  skip_ows();
  if (pos_ == text_.size()) return false;
  if (at(',')) {
    ++pos_;
    return false;
  }
  if (!at(';')) return fail();
  ++pos_;
  skip_ows();
  param = Param{};
  param.name = token();
  if (param.name.empty()) return fail();
  skip_ows();
  if (!at('=')) return true;
  ++pos_;
  skip_ows();
  param.has_value = true;
  return read_value(param);
}

bool ExtensionReader::read_value(Param& param) {
  if (at('"')) return read_quoted(param);
  const std::string_view value = token();
  if (value.empty()) return fail();
  for (char c : value) param.push_value(c);
  return true;
}

bool ExtensionReader::read_quoted(Param& param) {
  ++pos_;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\\' && ++pos_ == text_.size()) break;
    param.push_value(text_[pos_++]);
  }
  if (!at('"')) return fail();
  ++pos_;
  return true;
}

// "8".."15" without leading zeros (RFC 7692 §7.1.2.1), else -1.
int parse_window_bits(const Param& param) {
  if (param.value_too_long) return -1;
  const char* v = param.value;
  if (param.value_size == 1 && (v[0] == '8' || v[0] == '9')) return v[0] - '0';
  if (param.value_size == 2 && v[0] == '1' && v[1] >= '0' && v[1] <= '5') return 10 + (v[1] - '0');
  return -1;
}

// The judgement of one offer, parameter by parameter.
class Offer {
 public:
  explicit Offer(bool is_deflate) : valid_(is_deflate) {}
  void add(const Param& param);
  [[nodiscard]] DeflateParams accept(int server_window_bits) const;

 private:
  enum Known : std::uint8_t { kServerNoTakeover, kClientNoTakeover, kServerBits, kClientBits, kUnknown };
  static Known known(std::string_view name);
  [[nodiscard]] bool check(Known which, const Param& param);

  bool valid_;
  std::uint8_t seen_ = 0;
  bool client_no_context_takeover_ = false;
  int server_bits_ = 0;  // 0: not offered
  int client_bits_ = kMaxWindowBits;
};

Offer::Known Offer::known(std::string_view name) {
  if (iequals(name, "server_no_context_takeover")) return kServerNoTakeover;
  if (iequals(name, "client_no_context_takeover")) return kClientNoTakeover;
  if (iequals(name, "server_max_window_bits")) return kServerBits;
  if (iequals(name, "client_max_window_bits")) return kClientBits;
  return kUnknown;
}

void Offer::add(const Param& param) {
  if (!valid_) return;
  const Known which = known(param.name);
  const auto bit = static_cast<std::uint8_t>(1U << which);
  valid_ = which != kUnknown && (seen_ & bit) == 0 && check(which, param);
  seen_ = static_cast<std::uint8_t>(seen_ | bit);
}

bool Offer::check(Known which, const Param& param) {
  switch (which) {
    case kServerNoTakeover:
      return !param.has_value;
    case kClientNoTakeover:
      client_no_context_takeover_ = true;
      return !param.has_value;
    case kServerBits:
      server_bits_ = parse_window_bits(param);
      return server_bits_ > 0;
    case kClientBits:
      if (param.has_value) client_bits_ = parse_window_bits(param);
      return client_bits_ > 0;
    case kUnknown:
      break;
  }
  return false;
}

DeflateParams Offer::accept(int server_window_bits) const {
  if (!valid_ || (server_bits_ != 0 && server_bits_ < server_window_bits)) return {};
  DeflateParams params;
  params.enabled = true;
  params.server_no_context_takeover = true;
  params.client_no_context_takeover = client_no_context_takeover_;
  params.server_max_window_bits = server_window_bits;
  params.client_max_window_bits = client_bits_;
  params.server_max_window_bits_offered = server_bits_ != 0;
  return params;
}

bool append_bits(buf::Sink& out, std::string_view name, int bits) {
  const char digits[2] = {static_cast<char>('0' + bits / 10), static_cast<char>('0' + bits % 10)};
  const std::string_view value = bits < 10 ? std::string_view(digits + 1, 1) : std::string_view(digits, 2);
  return out.append(name) && out.append(value);
}

}  // namespace

DeflateParams negotiate_deflate(std::string_view offers, int max_server_window_bits) {
  const int server_bits = zlib_window_bits(max_server_window_bits);
  ExtensionReader reader(offers);
  std::string_view name;
  while (reader.next_extension(name)) {
    Offer offer(iequals(name, kExtensionName));
    Param param;
    while (reader.next_param(param)) offer.add(param);
    if (reader.failed()) return {};
    const DeflateParams params = offer.accept(server_bits);
    if (params.enabled) return params;
  }
  return {};
}

bool write_deflate_response(const DeflateParams& params, buf::Sink& out) {
  bool ok = out.append(kExtensionName);
  if (params.server_no_context_takeover) ok = ok && out.append("; server_no_context_takeover");
  if (params.client_no_context_takeover) ok = ok && out.append("; client_no_context_takeover");
  if (params.server_max_window_bits_offered) {
    ok = ok && append_bits(out, "; server_max_window_bits=", params.server_max_window_bits);
  }
  if (params.client_max_window_bits < kMaxWindowBits) {
    ok = ok && append_bits(out, "; client_max_window_bits=", params.client_max_window_bits);
  }
  return ok;
}

// ---- Inflater -------------------------------------------------------------

namespace {

InflateStatus status_of(int zlib_result) {
  switch (zlib_result) {
    case Z_OK:
    case Z_STREAM_END:
    case Z_BUF_ERROR:  // no progress possible: not an error for a stream fed in pieces
      return InflateStatus::ok;
    case Z_MEM_ERROR:
      return InflateStatus::no_memory;
    default:
      return InflateStatus::corrupt;
  }
}

uInt clamp_uint(std::size_t n) { return static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX)); }

// What a message may hold after its final block: zero bytes. A sender that
// ends a message with a final block and then flushes as usual adds an empty
// stored block's three header bits and zero bits to the byte's end, so at
// most one zero byte; more zeros are harmless. Anything else would be data
// dropped without a word.
bool only_padding(std::span<const char> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

}  // namespace

Inflater::Inflater(int window_bits, bool no_context_takeover, std::size_t max_message_size,
                   buf::MemoryAccount* account)
    : memory_(account), limit_(max_message_size), no_context_takeover_(no_context_takeover) {
  auto* stream = new (std::nothrow) z_stream{};
  if (stream == nullptr) return;
  stream->zalloc = &ZlibMemory::allocate;
  stream->zfree = &ZlibMemory::release;
  stream->opaque = &memory_;
  if (inflateInit2(stream, -zlib_window_bits(window_bits)) != Z_OK) {
    delete stream;
    return;
  }
  stream_.reset(stream);
}

InflateResult Inflater::inflate(std::span<const char> in, std::span<char> out) {
  if (stream_ended_) return {only_padding(in) ? InflateStatus::ok : InflateStatus::corrupt, in.size(), 0};
  if (produced_ == limit_) return probe_past_limit(in);
  // zlib refuses a null output pointer even with no room, so an empty `out`
  // (say, a buffer not allocated yet) is answered here.
  if (out.empty()) return {InflateStatus::need_space, 0, 0};
  InflateResult result = run(in, out.first(std::min(out.size(), limit_ - produced_)));
  produced_ += result.produced;
  if (result.status == InflateStatus::need_space && produced_ == limit_) {
    const InflateResult probe = probe_past_limit(in.subspan(result.consumed));
    result.consumed += probe.consumed;
    result.status = probe.status;
  }
  return result;
}

InflateResult Inflater::probe_past_limit(std::span<const char> in) {
  char scratch = 0;
  InflateResult result = run(in, {&scratch, 1});
  if (result.produced > 0) result.status = InflateStatus::too_big;
  result.produced = 0;
  return result;
}

// Runs zlib until `in` is used up, `out` is full or the stream ends or
// fails; more than one pass only for spans over 4 GiB.
InflateResult Inflater::run(std::span<const char> in, std::span<char> out) {
  z_stream& z = *stream_;
  InflateResult result;
  int rc = Z_OK;
  do {
    z.next_in = reinterpret_cast<const Bytef*>(in.data() + result.consumed);
    z.avail_in = clamp_uint(in.size() - result.consumed);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + result.produced);
    z.avail_out = clamp_uint(out.size() - result.produced);
    const uInt in_before = z.avail_in;
    const uInt out_before = z.avail_out;
    rc = ::inflate(&z, Z_SYNC_FLUSH);
    result.consumed += in_before - z.avail_in;
    result.produced += out_before - z.avail_out;
  } while (rc == Z_OK && result.consumed < in.size() && result.produced < out.size());
  result.status = status_of(rc);
  if (rc == Z_STREAM_END) {
    stream_ended_ = true;  // a final block: only padding may follow in this message
    if (!in_tail_ && !only_padding(in.subspan(result.consumed))) result.status = InflateStatus::corrupt;
    result.consumed = in.size();
  } else if (result.status == InflateStatus::ok && result.produced == out.size()) {
    result.status = InflateStatus::need_space;
  }
  return result;
}

InflateResult Inflater::finish(std::span<char> out) {
  // The tail only stands in for a sync flush the sender left out: after a
  // final block there is nothing it could end.
  if (stream_ended_) {
    end_message();
    return {};
  }
  in_tail_ = true;
  const InflateResult result = inflate(std::span<const char>(kTail).subspan(tail_sent_), out);
  in_tail_ = false;
  tail_sent_ += result.consumed;
  if (result.status != InflateStatus::need_space) end_message();
  return result;
}

void Inflater::end_message() {
  if (no_context_takeover_) {
    inflateReset(stream_.get());
  } else if (stream_ended_) {
    reset_keeping_window();
  }
  produced_ = 0;
  tail_sent_ = 0;
  stream_ended_ = false;
}

// A stream that ended with a final block takes no more input, so it is
// reset; with context takeover the sender's next message may still point
// back into what this one held, so the window is carried over the reset.
// The window is zlib's already (charged since its first use): setting it
// again allocates nothing.
void Inflater::reset_keeping_window() {
  z_stream* stream = stream_.get();
  Bytef window[std::size_t{1} << kMaxWindowBits];
  uInt size = sizeof window;
  if (inflateGetDictionary(stream, window, &size) != Z_OK) size = 0;
  inflateReset(stream);
  if (size > 0) inflateSetDictionary(stream, window, size);
}

// ---- Deflater -------------------------------------------------------------

Deflater::Deflater(int window_bits, int level) {
  auto* stream = new (std::nothrow) z_stream{};
  if (stream == nullptr) return;
  if (deflateInit2(stream, level, Z_DEFLATED, -zlib_window_bits(window_bits), 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    delete stream;
    return;
  }
  stream_.reset(stream);
}

bool Deflater::grow(std::size_t capacity) {
  if (capacity <= capacity_) return true;
  std::unique_ptr<char[]> bigger(new (std::nothrow) char[capacity]);
  if (!bigger) return false;
  if (capacity_ > 0) std::memcpy(bigger.get(), out_.get(), capacity_);
  out_ = std::move(bigger);
  capacity_ = capacity;
  return true;
}

DeflateOutput Deflater::compress(std::span<const char> message) {
  if (message.size() > UINT_MAX) return {};
  z_stream& z = *stream_;
  deflateReset(&z);
  // deflateBound covers Z_FINISH; a sync flush adds its 5-byte empty block.
  if (!grow(deflateBound(&z, static_cast<uLong>(message.size())) + 8)) return {};
  z.next_in = reinterpret_cast<const Bytef*>(message.data());
  z.avail_in = static_cast<uInt>(message.size());
  do {
    if (z.total_out == capacity_ && !grow(capacity_ * 2)) return {};
    z.next_out = reinterpret_cast<Bytef*>(out_.get() + z.total_out);
    z.avail_out = clamp_uint(capacity_ - z.total_out);
    if (deflate(&z, Z_SYNC_FLUSH) == Z_STREAM_ERROR) return {};
  } while (z.avail_out == 0);
  std::size_t size = z.total_out;
  if (size >= sizeof kTail && std::memcmp(out_.get() + size - sizeof kTail, kTail, sizeof kTail) == 0) {
    size -= sizeof kTail;
  }
  return {true, std::span<const char>(out_.get(), size)};
}

}  // namespace sluice::proto::ws
