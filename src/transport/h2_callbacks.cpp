// nghttp2 calls these from inside nghttp2_session_mem_recv (receive) and
// nghttp2_session_send (flush). Sending happens only during a flush, into
// the round being gathered; a DATA frame is made only when the round has
// room for it, so nghttp2 never holds a frame the round could not take.
#include "transport/h2_callbacks.hpp"

#include <algorithm>
#include <string_view>

#include "transport/h2_session.hpp"
#include "transport/queue_peek.hpp"

namespace sluice::transport {

namespace {

using detail::H2Stream;
using detail::kMaxDataPayload;

H2Session& session_of(void* user_data) { return *static_cast<H2Session*>(user_data); }

std::string_view view(const std::uint8_t* data, std::size_t length) {
  return {reinterpret_cast<const char*>(data), length};
}

bool is_request(const nghttp2_frame* frame) {
  return frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST;
}

}  // namespace

nghttp2_session_callbacks* H2Callbacks::make() {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return nullptr;
  nghttp2_session_callbacks_set_send_callback(callbacks, send);
  nghttp2_session_callbacks_set_send_data_callback(callbacks, send_data);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
  return callbacks;
}

ssize_t H2Callbacks::send(nghttp2_session*, const std::uint8_t* data, std::size_t length, int, void* user_data) {
  H2Session& s = session_of(user_data);
  if (!s.flushing_ || (s.output_.round_full() && !s.output_.round_empty())) return NGHTTP2_ERR_WOULDBLOCK;
  const std::size_t taken = s.output_.add_frame_bytes(data, length);
  return taken > 0 ? static_cast<ssize_t>(taken) : ssize_t{NGHTTP2_ERR_WOULDBLOCK};
}

int H2Callbacks::send_data(nghttp2_session*, nghttp2_frame* frame, const std::uint8_t* header, std::size_t length,
                           nghttp2_data_source* source, void* user_data) {
  H2Session& s = session_of(user_data);
  // Padding is never asked for (there is no select_padding callback).
  if (frame->data.padlen > 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
  s.output_.add_data_frame(header, static_cast<H2Stream*>(source->ptr), length);
  return s.output_.round_full() ? int{NGHTTP2_ERR_PAUSE} : 0;
}

ssize_t H2Callbacks::read_data(nghttp2_session*, std::int32_t, std::uint8_t*, std::size_t length,
                               std::uint32_t* flags, nghttp2_data_source* source, void* user_data) {
  H2Session& s = session_of(user_data);
  auto& stream = *static_cast<H2Stream*>(source->ptr);
  if (!s.output_.can_take_data_frame()) return NGHTTP2_ERR_PAUSE;
  // What the stream's latency gate lets this flush take, worked out at the
  // flush's first DATA frame of the stream, from the front of its queue.
  if (stream.budget_flush != s.flushes_) {
    stream.budget_flush = s.flushes_;
    stream.held = false;
    stream.budget = stream.allowance.bytes == SIZE_MAX
                        ? SIZE_MAX
                        : peekable(stream.queue, 0, SIZE_MAX, IOV_MAX, stream.allowance);
  }
  const std::size_t room =
      stream.budget == SIZE_MAX ? SIZE_MAX : stream.budget - std::min(stream.budget, stream.in_round);
  struct iovec scratch[IOV_MAX];
  const Peeked next = peek(stream.queue, stream.in_round, std::min({length, kMaxDataPayload, room}), scratch,
                           s.output_.payload_iov_room());
  const bool last = stream.ending && peekable(stream.queue, stream.in_round + next.bytes, 1, IOV_MAX) == 0;
  if (next.bytes == 0 && !last) {
    // Nothing queued, or nothing the gate lets go: nghttp2 sets the stream
    // aside until wake(); the other streams go on.
    stream.deferred = true;
    stream.held = room == 0 && peekable(stream.queue, stream.in_round, 1, IOV_MAX) > 0;
    return NGHTTP2_ERR_DEFERRED;
  }
  *flags |= NGHTTP2_DATA_FLAG_NO_COPY;
  if (last) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(next.bytes);
}

// A stream refused for want of memory is never opened here: its header
// fields, its DATA and its close find no stream and are passed over.
int H2Callbacks::on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  if (!is_request(frame)) return 0;
  H2Session& s = session_of(user_data);
  if (!s.admit_stream(frame->hd.stream_id)) return s.out_of_memory_ ? int{NGHTTP2_ERR_CALLBACK_FAILURE} : 0;
  s.open_stream(frame->hd.stream_id);
  return 0;
}

int H2Callbacks::on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                           std::size_t name_length, const std::uint8_t* value, std::size_t value_length,
                           std::uint8_t, void* user_data) {
  H2Session& s = session_of(user_data);
  H2Stream* stream = is_request(frame) ? s.find(frame->hd.stream_id) : nullptr;
  // Trailers carry nothing sluice uses; they are counted by nghttp2's
  // header limits only.
  if (stream != nullptr) (void)stream->add_header(view(name, name_length), view(value, value_length), s.limits_);
  return 0;
}

int H2Callbacks::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  H2Session& s = session_of(user_data);
  if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK) != 0) {
    s.on_ping_answer(frame->ping.opaque_data);
    return 0;
  }
  H2Stream* stream = s.find(frame->hd.stream_id);
  if (stream == nullptr) return 0;
  const bool end_stream = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (is_request(frame)) {
    s.on_request(*stream, end_stream);
  } else if (end_stream && stream->told && !stream->refused) {
    s.handler_.on_end(stream->id);
  }
  return 0;
}

int H2Callbacks::on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                               std::size_t length, void* user_data) {
  session_of(user_data).on_data(stream_id, view(data, length));
  return 0;
}

int H2Callbacks::on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code,
                                 void* user_data) {
  session_of(user_data).on_stream_closed(stream_id, error_code);
  return 0;
}

int H2Callbacks::on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  H2Session& s = session_of(user_data);
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    s.end_.goaway_sent = true;
    s.end_.error_code = frame->goaway.error_code;
    return 0;
  }
  if (frame->hd.type == NGHTTP2_RST_STREAM) {
    s.meter_.reset_sent(static_cast<std::uint32_t>(frame->hd.stream_id), frame->rst_stream.error_code,
                        FrameMeter::Clock::now());
    return 0;
  }
  // The end of the answer: its HEADERS, or the last DATA of a body.
  const bool answer_ends = frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA;
  if (answer_ends && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
    H2Stream* stream = s.find(frame->hd.stream_id);
    if (stream != nullptr && (stream->refused || stream->stop_sender)) s.stop_sender(*stream);
  }
  return 0;
}

}  // namespace sluice::transport
