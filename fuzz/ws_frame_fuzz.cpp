// Fuzzes ws::Decoder the way a connection drives it: the input (after its
// first two bytes) arrives in two chunks, each in its own heap buffer so that
// a read past a chunk is a sanitizer report, and each chunk is fed until
// need_more. Byte 0 picks the role, a small or large message limit, and
// whether permessage-deflate is on (with or without context takeover and
// with which client window); byte 1 picks the split point.
//
// Invariants, abort() on violation: consumed is within the input and
// need_more consumes all of it; a text message and a close reason are UTF-8;
// a message fits the limit and a control payload 125 bytes; a close code is
// valid or 1005; an error carries 1002, 1007, 1009 or 1011 and repeats; and
// the split run gives exactly the events of the run that sees the whole
// input at once. One exception: zlib checks a back-reference against the
// declared window only when it reaches into an earlier call's output, so a
// peer that breaks a window smaller than 15 bits may be caught (1007) in one
// run and not the other; the runs must agree up to that error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "proto/utf8.hpp"
#include "proto/ws_decoder.hpp"

namespace {

using namespace sluice::proto::ws;

void check(bool ok) {
  if (!ok) std::abort();
}

struct Event {
  DecodeStatus status;
  Opcode opcode;
  CloseCode code;
  std::string payload;
  bool operator==(const Event&) const = default;
};

bool valid_error_code(CloseCode code) {
  return code == CloseCode::protocol_error || code == CloseCode::invalid_payload ||
         code == CloseCode::message_too_big || code == CloseCode::internal_error;
}

void check_event(const DecodeResult& r, const DecoderLimits& limits) {
  const std::string_view payload(r.payload.data(), r.payload.size());
  switch (r.status) {
    case DecodeStatus::message:
      check(r.opcode == Opcode::text || r.opcode == Opcode::binary);
      check(payload.size() <= limits.max_message_size);
      check(r.opcode != Opcode::text || is_valid_utf8(payload));
      break;
    case DecodeStatus::ping:
    case DecodeStatus::pong:
      check(payload.size() <= kMaxControlPayload);
      break;
    case DecodeStatus::close:
      check(r.close_code == CloseCode::no_status || is_valid_close_code(to_wire(r.close_code)));
      check(is_valid_utf8(payload) && payload.size() <= kMaxCloseReason);
      break;
    case DecodeStatus::error:
      check(valid_error_code(r.close_code) && r.error != nullptr);
      break;
    case DecodeStatus::need_more:
      break;
  }
}

// Feeds one chunk until need_more or an error, recording every event.
void drain(Decoder& decoder, const std::vector<char>& chunk, const DecoderLimits& limits, std::vector<Event>& events) {
  std::span<const char> in(chunk.data(), chunk.size());
  for (;;) {
    const DecodeResult r = decoder.feed(in);
    check(r.consumed <= in.size());
    in = in.subspan(r.consumed);
    check_event(r, limits);
    if (r.status == DecodeStatus::need_more) {
      check(in.empty());
      return;
    }
    events.push_back({r.status, r.opcode, r.close_code, std::string(r.payload.data(), r.payload.size())});
    if (r.status == DecodeStatus::error) {
      const DecodeResult again = decoder.feed(in);
      check(again.status == DecodeStatus::error && again.close_code == r.close_code && again.consumed == 0);
      return;
    }
  }
}

int window_bits(std::uint8_t mode) { return kMinWindowBits + (mode >> 4) % 8; }

DecoderLimits limits_for(std::uint8_t mode) {
  DecoderLimits limits;
  limits.role = (mode & 0x01) != 0 ? Role::client : Role::server;
  limits.max_message_size = (mode & 0x02) != 0 ? std::size_t{1} << 20 : 300;
  return limits;
}

void configure(Decoder& decoder, std::uint8_t mode) {
  if ((mode & 0x04) == 0) return;
  DeflateParams params;
  params.enabled = true;
  params.server_no_context_takeover = (mode & 0x08) != 0;
  params.client_no_context_takeover = (mode & 0x08) != 0;
  params.client_max_window_bits = window_bits(mode);
  params.server_max_window_bits = params.client_max_window_bits;
  check(decoder.set_deflate(params));
}

// True when `a` and `b` agree until one of them fails with 1007.
bool differ_only_by_window(const std::vector<Event>& a, const std::vector<Event>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const auto is_1007 = [](const std::vector<Event>& events, std::size_t at) {
    return at < events.size() && events[at].status == DecodeStatus::error &&
           events[at].code == CloseCode::invalid_payload;
  };
  return is_1007(a, i) || is_1007(b, i);
}

std::vector<Event> run(std::uint8_t mode, const std::vector<std::vector<char>>& chunks) {
  const DecoderLimits limits = limits_for(mode);
  Decoder decoder(limits);
  configure(decoder, mode);
  std::vector<Event> events;
  for (const auto& chunk : chunks) {
    drain(decoder, chunk, limits, events);
    if (!events.empty() && events.back().status == DecodeStatus::error) break;
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t mode = data[0];
  const char* input = reinterpret_cast<const char*>(data + 2);
  const std::size_t n = size - 2;
  const std::size_t split = n * data[1] / 255;
  const std::vector<Event> whole = run(mode, {std::vector<char>(input, input + n)});
  const std::vector<Event> split_run =
      run(mode, {std::vector<char>(input, input + split), std::vector<char>(input + split, input + n)});
  const bool small_window = (mode & 0x04) != 0 && window_bits(mode) < kMaxWindowBits;
  check(whole == split_run || (small_window && differ_only_by_window(whole, split_run)));
  return 0;
}
