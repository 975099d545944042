// The decoder is one switch over where it is in a frame (head, extended
// length, mask key, payload); each case collects what it needs from the
// input and either waits for more or moves on. Header bytes are gathered in
// a 14-byte array so a header split anywhere parses the same way; payload
// bytes are copied once, unmasked in place (control frames into their own
// buffer, so a ping between fragments leaves the message intact), or, for
// compressed messages, unmasked into a stack chunk and inflated straight
// into the message buffer.
#include "proto/ws_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string_view>

namespace sluice::proto::ws {

namespace {

constexpr std::uint8_t kFinBit = 0x80;
constexpr std::uint8_t kRsv1Bit = 0x40;
constexpr std::uint8_t kRsv23Bits = 0x30;
constexpr std::uint8_t kOpcodeBits = 0x0F;
constexpr std::uint8_t kMaskBit = 0x80;
constexpr std::uint8_t kLengthBits = 0x7F;
constexpr std::uint8_t kLength16 = 126;
constexpr std::uint8_t kLength64 = 127;
constexpr std::size_t kMaskSize = 4;
constexpr std::size_t kInflateChunk = 512;

bool is_known_opcode(std::uint8_t op) { return op <= 0x2 || (op >= 0x8 && op <= 0xA); }

std::uint8_t byte_at(const char* p) { return static_cast<std::uint8_t>(*p); }

std::uint64_t read_big_endian(const char* p, std::size_t n) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < n; ++i) value = (value << 8) | byte_at(p + i);
  return value;
}

DecodeResult need_more() { return {}; }

DecodeResult event(DecodeStatus status, std::span<const char> payload) {
  DecodeResult result;
  result.status = status;
  result.payload = payload;
  return result;
}

}  // namespace

Decoder::Decoder(const DecoderLimits& limits) : limits_(limits), message_(limits.account, limits.uncharged) {}

bool Decoder::set_deflate(const DeflateParams& params) {
  inflater_.reset();
  if (!params.enabled) return true;
  // The inflater reads what the peer compressed, so it takes the peer's half
  // of the parameters.
  const bool server = limits_.role == Role::server;
  const int window_bits = server ? params.client_max_window_bits : params.server_max_window_bits;
  const bool no_takeover = server ? params.client_no_context_takeover : params.server_no_context_takeover;
  inflater_.reset(new (std::nothrow) Inflater(window_bits, no_takeover, limits_.max_message_size, limits_.account));
  if (inflater_ && !inflater_->ok()) {
    const buf::ChargeStatus refusal = inflater_->refusal();
    inflater_.reset();
    if (refusal != buf::ChargeStatus::ok) {
      const MemoryRefusal answer = deflate_refusal(refusal);
      (void)fail(answer.code, answer.reason);
    }
  }
  return inflater_ != nullptr;
}

DecodeResult Decoder::feed(std::span<const char> bytes) {
  std::span<const char> in = bytes;
  for (;;) {
    if (state_ == State::failed) return failure_;
    if (state_ == State::closed) {
      DecodeResult discarded;
      discarded.consumed = bytes.size();
      return discarded;
    }
    // An empty payload completes its frame without any further byte.
    const bool frame_complete = state_ == State::payload && frame_done_ == frame_size_;
    if (in.empty() && !frame_complete) break;
    DecodeResult result = step(in);
    if (result.status != DecodeStatus::need_more) {
      result.consumed = bytes.size() - in.size();
      return result;
    }
  }
  DecodeResult result;
  result.consumed = bytes.size();
  return result;
}

DecodeResult Decoder::step(std::span<const char>& in) {
  switch (state_) {
    case State::head:
      return on_head(in);
    case State::length:
      return on_length(in);
    case State::mask_key:
      return on_mask_key(in);
    case State::payload:
      return on_payload(in);
    case State::closed:
    case State::failed:
      break;
  }
  return need_more();
}

bool Decoder::collect(std::span<const char>& in, std::size_t want) {
  const std::size_t n = std::min(want - header_size_, in.size());
  std::memcpy(header_.data() + header_size_, in.data(), n);
  header_size_ += n;
  in = in.subspan(n);
  return header_size_ == want;
}

std::size_t Decoder::length_end() const {
  const std::uint8_t length = byte_at(&header_[1]) & kLengthBits;
  return length == kLength16 ? 4 : length == kLength64 ? 10 : 2;
}

DecodeResult Decoder::on_head(std::span<const char>& in) {
  if (!collect(in, 2)) return need_more();
  const std::uint8_t b0 = byte_at(&header_[0]);
  const std::uint8_t b1 = byte_at(&header_[1]);
  frame_fin_ = (b0 & kFinBit) != 0;
  frame_rsv1_ = (b0 & kRsv1Bit) != 0;
  frame_opcode_ = static_cast<Opcode>(b0 & kOpcodeBits);
  frame_masked_ = (b1 & kMaskBit) != 0;
  if (const char* why = check_head()) return fail(CloseCode::protocol_error, why);
  if ((b1 & kLengthBits) < kLength16) {
    frame_size_ = b1 & kLengthBits;
    return on_length_known();
  }
  state_ = State::length;
  return need_more();
}

const char* Decoder::check_head() const {
  const std::uint8_t b0 = byte_at(&header_[0]);
  if ((b0 & kRsv23Bits) != 0) return "RSV2 or RSV3 set without an extension";
  if (!is_known_opcode(b0 & kOpcodeBits)) return "reserved opcode";
  if (is_control(frame_opcode_)) {
    if (!frame_fin_) return "fragmented control frame";
    if ((byte_at(&header_[1]) & kLengthBits) > kMaxControlPayload) return "control frame over 125 bytes";
    if (frame_rsv1_) return "RSV1 set on a control frame";
  } else if (const char* why = check_data_head(frame_rsv1_)) {
    return why;
  }
  const bool want_mask = limits_.role == Role::server;
  if (frame_masked_ != want_mask) return want_mask ? "unmasked client frame" : "masked server frame";
  return nullptr;
}

const char* Decoder::check_data_head(bool rsv1) const {
  if (frame_opcode_ == Opcode::continuation) {
    if (!in_message_) return "continuation frame without a message to continue";
    // RFC 7692 §6.1: only a message's first frame carries the compression bit.
    if (rsv1) return "RSV1 set on a continuation frame";
    return nullptr;
  }
  if (in_message_) return "new data frame inside a fragmented message";
  if (rsv1 && !inflater_) return "RSV1 set without permessage-deflate";
  return nullptr;
}

DecodeResult Decoder::on_length(std::span<const char>& in) {
  const std::size_t end = length_end();
  if (!collect(in, end)) return need_more();
  frame_size_ = read_big_endian(header_.data() + 2, end - 2);
  if ((frame_size_ >> 63) != 0) return fail(CloseCode::protocol_error, "64-bit length with the top bit set");
  return on_length_known();
}

DecodeResult Decoder::on_length_known() {
  const bool compressed = frame_opcode_ == Opcode::continuation ? compressed_ : frame_rsv1_;
  if (!is_control(frame_opcode_) && !compressed) {
    const std::uint64_t before = frame_opcode_ == Opcode::continuation ? message_.size() : 0;
    if (before + frame_size_ > limits_.max_message_size) {
      return fail(CloseCode::message_too_big, kMessageOverSizeLimit);
    }
  }
  if (frame_masked_) {
    state_ = State::mask_key;
    return need_more();
  }
  return begin_payload();
}

DecodeResult Decoder::on_mask_key(std::span<const char>& in) {
  const std::size_t end = length_end() + kMaskSize;
  if (!collect(in, end)) return need_more();
  std::memcpy(mask_.data(), header_.data() + end - kMaskSize, kMaskSize);
  return begin_payload();
}

DecodeResult Decoder::begin_payload() {
  state_ = State::payload;
  header_size_ = 0;
  frame_done_ = 0;
  if (is_control(frame_opcode_)) return need_more();
  if (frame_opcode_ != Opcode::continuation) start_message();
  if (compressed_) return need_more();
  // The size check above bounds this reservation by max_message_size.
  const auto total = static_cast<std::size_t>(message_.size() + frame_size_);
  const buf::Growth growth = message_.reserve(total, limits_.max_message_size);
  return growth == buf::Growth::ok ? need_more() : refuse(growth);
}

// The buffer could not grow: the server is out of memory, or the charge
// would pass a memory limit (the reason names the key to raise).
MemoryRefusal memory_refusal(buf::Growth growth) {
  switch (growth) {
    case buf::Growth::over_connection:
      return {CloseCode::message_too_big, "message over this connection's memory (limits.connection_bytes)"};
    case buf::Growth::over_server:
      return {CloseCode::message_too_big, "server memory for messages is full (limits.server_bytes)"};
    case buf::Growth::ok:
    case buf::Growth::no_memory:
      break;
  }
  return {CloseCode::internal_error, "out of memory"};
}

MemoryRefusal deflate_refusal(buf::ChargeStatus status) {
  if (status == buf::ChargeStatus::over_server) {
    return {CloseCode::try_again_later, "server memory for compression is full (limits.server_bytes)"};
  }
  return {CloseCode::policy_violation, "compression state over this connection's memory (limits.connection_bytes)"};
}

DecodeResult Decoder::refuse(buf::Growth growth) {
  const MemoryRefusal refusal = memory_refusal(growth);
  return fail(refusal.code, refusal.reason);
}

void Decoder::start_message() {
  in_message_ = true;
  compressed_ = frame_rsv1_;
  message_opcode_ = frame_opcode_;
  message_.clear();
  utf8_.reset();
}

DecodeResult Decoder::on_payload(std::span<const char>& in) {
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(in.size(), frame_size_ - frame_done_));
  const std::span<const char> chunk = in.first(n);
  in = in.subspan(n);
  // An empty frame has nothing to copy, and perhaps no buffer yet to copy into.
  const DecodeResult result = n == 0 ? need_more() : take(chunk);
  frame_done_ += n;
  if (result.status != DecodeStatus::need_more) return result;
  return frame_done_ == frame_size_ ? finish_frame() : need_more();
}

DecodeResult Decoder::take(std::span<const char> chunk) {
  if (is_control(frame_opcode_)) return take_control(chunk);
  return compressed_ ? take_compressed(chunk) : take_plain(chunk);
}

void Decoder::unmask(char* data, std::size_t n) const {
  if (frame_masked_) apply_mask(std::span<char>(data, n), mask_, static_cast<std::size_t>(frame_done_));
}

DecodeResult Decoder::take_control(std::span<const char> chunk) {
  char* dst = control_.data() + frame_done_;
  if (!chunk.empty()) std::memcpy(dst, chunk.data(), chunk.size());
  unmask(dst, chunk.size());
  return need_more();
}

DecodeResult Decoder::take_plain(std::span<const char> chunk) {
  char* dst = message_.spare().data();
  if (!chunk.empty()) std::memcpy(dst, chunk.data(), chunk.size());
  unmask(dst, chunk.size());
  message_.commit(chunk.size());
  if (message_opcode_ == Opcode::text && utf8_.feed(dst, chunk.size()) == Utf8Status::invalid) {
    return fail(CloseCode::invalid_payload, "invalid UTF-8 in a text message");
  }
  return need_more();
}

DecodeResult Decoder::take_compressed(std::span<const char> chunk) {
  char piece[kInflateChunk];
  for (std::size_t done = 0; done < chunk.size();) {
    const std::size_t n = std::min(kInflateChunk, chunk.size() - done);
    std::memcpy(piece, chunk.data() + done, n);
    if (frame_masked_) apply_mask(std::span<char>(piece, n), mask_, static_cast<std::size_t>(frame_done_ + done));
    const std::size_t text_start = message_.size();
    const DecodeResult result = after_inflate(inflate_into_message({piece, n}, false), text_start);
    if (result.status != DecodeStatus::need_more) return result;
    done += n;
  }
  return need_more();
}

// Inflates `in` (or, when `last`, the message's closing tail) into the
// message buffer, growing it as needed; the Inflater enforces the limit.
InflateStatus Decoder::inflate_into_message(std::span<const char> in, bool last) {
  for (;;) {
    inflate_growth_ = buf::Growth::no_memory;  // what a Z_MEM_ERROR means
    const InflateResult result = last ? inflater_->finish(message_.spare()) : inflater_->inflate(in, message_.spare());
    message_.commit(result.produced);
    if (!last) in = in.subspan(result.consumed);
    if (result.status != InflateStatus::need_space) return result.status;
    if (message_.capacity() >= limits_.max_message_size) return InflateStatus::too_big;
    inflate_growth_ = message_.reserve(message_.capacity() + 1, limits_.max_message_size);
    if (inflate_growth_ != buf::Growth::ok) return InflateStatus::no_memory;
  }
}

DecodeResult Decoder::after_inflate(InflateStatus status, std::size_t text_start) {
  // The bytes inflated before a failure are checked first, so that the
  // answer does not depend on how the input was cut into pieces.
  const std::size_t n = message_.size() - text_start;
  if (message_opcode_ == Opcode::text && utf8_.feed(message_.data() + text_start, n) == Utf8Status::invalid) {
    return fail(CloseCode::invalid_payload, "invalid UTF-8 in a text message");
  }
  switch (status) {
    case InflateStatus::too_big:
      return fail(CloseCode::message_too_big, kMessageInflatesOverSizeLimit);
    case InflateStatus::corrupt:
      return fail(CloseCode::invalid_payload, "invalid compressed data");
    case InflateStatus::no_memory:
      if (const buf::ChargeStatus refusal = inflater_->refusal(); refusal != buf::ChargeStatus::ok) {
        const MemoryRefusal answer = deflate_refusal(refusal);
        return fail(answer.code, answer.reason);
      }
      return refuse(inflate_growth_);
    case InflateStatus::ok:
    case InflateStatus::need_space:
      break;
  }
  return need_more();
}

DecodeResult Decoder::finish_frame() {
  state_ = State::head;
  if (is_control(frame_opcode_)) return control_event();
  if (!frame_fin_) return need_more();
  return finish_message();
}

DecodeResult Decoder::finish_message() {
  if (compressed_) {
    const std::size_t text_start = message_.size();
    const DecodeResult result = after_inflate(inflate_into_message({}, true), text_start);
    if (result.status != DecodeStatus::need_more) return result;
  }
  if (message_opcode_ == Opcode::text && utf8_.status() != Utf8Status::valid_complete) {
    return fail(CloseCode::invalid_payload, "text message ends inside a UTF-8 sequence");
  }
  in_message_ = false;
  DecodeResult result = event(DecodeStatus::message, message_.view());
  result.opcode = message_opcode_;
  return result;
}

DecodeResult Decoder::control_event() {
  const std::span<const char> payload(control_.data(), static_cast<std::size_t>(frame_size_));
  switch (frame_opcode_) {
    case Opcode::ping:
      return event(DecodeStatus::ping, payload);
    case Opcode::pong:
      return event(DecodeStatus::pong, payload);
    default:
      return close_event(payload);
  }
}

DecodeResult Decoder::close_event(std::span<const char> payload) {
  if (payload.size() == 1) return fail(CloseCode::protocol_error, "close payload of 1 byte");
  DecodeResult result = event(DecodeStatus::close, {});
  if (payload.size() >= 2) {
    const auto code = static_cast<std::uint16_t>(read_big_endian(payload.data(), 2));
    if (!is_valid_close_code(code)) return fail(CloseCode::protocol_error, "invalid close code");
    const std::span<const char> reason = payload.subspan(2);
    if (!is_valid_utf8(std::string_view(reason.data(), reason.size()))) {
      return fail(CloseCode::invalid_payload, "close reason is not UTF-8");
    }
    result.close_code = static_cast<CloseCode>(code);
    result.payload = reason;
  }
  state_ = State::closed;
  return result;
}

DecodeResult Decoder::fail(CloseCode code, const char* why) {
  state_ = State::failed;
  failure_ = DecodeResult{};
  failure_.status = DecodeStatus::error;
  failure_.close_code = code;
  failure_.error = why;
  return failure_;
}

}  // namespace sluice::proto::ws
