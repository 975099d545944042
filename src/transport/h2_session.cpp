// The session's state lives in nghttp2 (streams, windows, frames waiting)
// and here (each stream's H2Stream, the flood meter, the output). Events
// come in through H2Callbacks; this file holds what they do and what the
// owner calls.
#include "transport/h2_session.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <string>
#include <utility>

#include "transport/h2_callbacks.hpp"

namespace sluice::transport {

namespace {

using detail::H2Stream;

// Response headers besides :status.
constexpr std::size_t kMaxResponseHeaders = 32;
// HPACK tables both ways stay at the protocol's default size, whatever the
// peer announces.
constexpr std::size_t kHeaderTableBytes = 4096;

nghttp2_nv field(std::string_view name, std::string_view value) {
  // nghttp2 copies names and values when a frame is submitted.
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

H2Session::H2Session(H2Handler& handler, const H2Limits& limits, buf::MemoryAccount* account)
    : handler_(handler),
      limits_(limits),
      account_(account),
      memory_(limits.max_session_bytes, account),
      meter_(limits.max_frames_per_second, true) {
  if (!start()) {
    nghttp2_session_del(session_);
    session_ = nullptr;
    // The account had no room for the session itself: the client is told
    // so, in a SETTINGS and a GOAWAY made here, rather than by a bare close.
    if (!memory_.refused_by().empty()) {
      output_.append_raw(std::string_view("\0\0\0\4\0\0\0\0\0", 9));
      abandon(NGHTTP2_ERR_NOMEM);
    }
  }
}

bool H2Session::start() {
  nghttp2_session_callbacks* callbacks = H2Callbacks::make();
  nghttp2_option* option = nullptr;
  if (callbacks == nullptr || nghttp2_option_new(&option) != 0) {
    nghttp2_session_callbacks_del(callbacks);
    return false;
  }
  // The owner says when input has been taken (consume()): a stream's
  // window is its receive budget.
  nghttp2_option_set_no_auto_window_update(option, 1);
  // Closed streams are forgotten at once; there is no priority tree to keep.
  nghttp2_option_set_no_closed_streams(option, 1);
  nghttp2_option_set_max_deflate_dynamic_table_size(option, kHeaderTableBytes);
  const int rc = nghttp2_session_server_new3(&session_, callbacks, this, option, memory_.allocator());
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  if (rc != 0) return false;
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits_.stream_window},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits_.max_header_list_bytes},
      {NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, limits_.extended_connect ? 1u : 0u},
      {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
  };
  return nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings)) == 0 &&
         nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                               static_cast<std::int32_t>(limits_.connection_window)) == 0;
}

H2Session::~H2Session() {
  for (const auto& stream : streams_) {
    if (!stream->closed && stream->told && !stream->refused) handler_.on_close(stream->id, NGHTTP2_CANCEL);
  }
  nghttp2_session_del(session_);
  for (auto* list : {&streams_, &spare_}) {
    for (auto& stream : *list) drop(std::move(stream));
  }
}

std::uint32_t H2Session::last_opened() const {
  return session_ != nullptr ? static_cast<std::uint32_t>(nghttp2_session_get_last_proc_stream_id(session_)) : 0;
}

bool H2Session::open(std::uint32_t stream) const {
  return session_ != nullptr && nghttp2_session_find_stream(session_, static_cast<std::int32_t>(stream)) != nullptr;
}

H2Status H2Session::receive(std::span<const char> bytes, Clock::time_point now) {
  if (session_ == nullptr) return abandoned_ ? H2Status::closing : H2Status::failed;
  if (terminated_) return H2Status::closing;
  if (meter_.scan(bytes, now, open_streams_, limits_.max_concurrent_streams, *this) == MeterVerdict::flood) {
    terminate(NGHTTP2_ENHANCE_YOUR_CALM);
    return H2Status::closing;
  }
  const ssize_t rc =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  release_closed();
  if (rc < 0) {
    abandon(out_of_memory_ ? int{NGHTTP2_ERR_NOMEM} : static_cast<int>(rc));
    return H2Status::closing;
  }
  return nghttp2_session_want_read(session_) != 0 ? H2Status::ok : H2Status::closing;
}

conn::FlushResult H2Session::flush(conn::Writer& writer) {
  conn::FlushResult result{conn::FlushStatus::drained};
  if (session_ == nullptr && !abandoned_) return {conn::FlushStatus::error, 0, 0, 0, EINVAL};
  flushing_ = true;
  ++flushes_;
  if (output_.write_pending(writer, result)) {
    while (!abandoned_) {
      output_.begin_round();
      if (const int rc = nghttp2_session_send(session_); rc != 0) {
        abandon(rc);
        (void)output_.write_pending(writer, result);
        break;
      }
      // The resets just sent for the client's errors may have made it a
      // flood (FrameMeter::reset_sent): its GOAWAY goes in the next round.
      const bool flooded_now = !terminated_ && meter_.flooded();
      if (flooded_now) terminate(NGHTTP2_ENHANCE_YOUR_CALM);
      if (output_.round_empty()) {
        if (flooded_now) continue;
        break;
      }
      if (!output_.write_round(writer, result)) break;
    }
  }
  flushing_ = false;
  release_closed();
  return result;
}

bool H2Session::wants_write() const {
  return output_.has_pending() || (session_ != nullptr && !abandoned_ && nghttp2_session_want_write(session_) != 0);
}

bool H2Session::done() const {
  if (session_ == nullptr) return !output_.has_pending();
  if (output_.has_pending()) return false;
  return abandoned_ || (nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0);
}

H2Stream* H2Session::find(std::int32_t stream) const {
  if (session_ == nullptr || stream <= 0) return nullptr;
  auto* found = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session_, stream));
  return found != nullptr && !found->closed ? found : nullptr;
}

bool H2Session::admit_stream(std::int32_t id) {
  if (account_ == nullptr) return true;
  // Its header list may take this much, in nghttp2 and in the stream.
  const std::size_t room = std::size_t{limits_.max_header_list_bytes} + sizeof(H2Stream);
  const buf::ChargeStatus status = account_->charge(room);
  if (status == buf::ChargeStatus::ok) {
    account_->release(room);
    return true;
  }
  note_refusal(status);
  ++streams_refused_;
  if (nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM) != 0) out_of_memory_ = true;
  return false;
}

bool H2Session::charge(H2Stream& stream) {
  const std::size_t now = stream.footprint();
  if (account_ != nullptr) {
    const buf::ChargeStatus status = account_->resize(stream.charged, now);
    if (status != buf::ChargeStatus::ok) {
      note_refusal(status);
      return false;
    }
  }
  stream.charged = now;
  return true;
}

void H2Session::drop(std::unique_ptr<H2Stream> stream) {
  if (stream && account_ != nullptr) account_->release(stream->charged);
}

void H2Session::note_refusal(buf::ChargeStatus status) { end_.memory_limit = memory_limit_key(status); }

void H2Session::open_stream(std::int32_t id) {
  std::unique_ptr<H2Stream> stream;
  if (!spare_.empty()) {
    stream = std::move(spare_.back());
    spare_.pop_back();
  } else {
    stream = std::make_unique<H2Stream>(limits_.stream_send);
  }
  // Charged for once its headers are in (on_request()): only one stream's
  // header block can be arriving at a time.
  stream->reset(id);
  nghttp2_session_set_stream_user_data(session_, id, stream.get());
  streams_.push_back(std::move(stream));
  ++open_streams_;
}

void H2Session::on_request(H2Stream& stream, bool end_stream) {
  // Admitted with room for the largest header list, the stream may still
  // find none left (another connection took it meanwhile): its headers go
  // back, unread, and it is answered 503.
  if (!charge(stream)) {
    stream.trim(0);
    (void)charge(stream);
    return refuse(stream, 503);
  }
  if (stream.header_list_too_big()) {
    const bool fields = stream.too_many_header_fields();
    handler_.on_headers_too_large(stream.id, fields, fields ? limits_.max_headers : limits_.max_header_list_bytes);
    return refuse(stream, 431);
  }
  stream.told = true;
  const H2Request request = stream.request(end_stream);
  stream.tunnel = request.method == "CONNECT";
  handler_.on_request(request);
}

void H2Session::on_data(std::int32_t id, std::string_view bytes) {
  H2Stream* stream = find(id);
  if (stream == nullptr || !stream->told || stream->refused) {
    nghttp2_session_consume(session_, id, bytes.size());
    return;
  }
  if (!stream->tunnel) {
    stream->body_bytes += bytes.size();
    if (stream->body_bytes > limits_.max_body) {
      nghttp2_session_consume(session_, id, bytes.size());
      handler_.on_body_too_large(id, limits_.max_body);
      return refuse(*stream, 413);
    }
  }
  stream->unconsumed += bytes.size();
  handler_.on_data(id, bytes);
}

void H2Session::on_stream_closed(std::int32_t id, std::uint32_t error_code) {
  H2Stream* stream = find(id);
  if (stream == nullptr) return;
  stream->closed = true;
  --open_streams_;
  // Bytes the owner never consumed would hold the connection's window
  // shut for every other stream.
  if (stream->unconsumed > 0) nghttp2_session_consume_connection(session_, stream->unconsumed);
  if (stream->told && !stream->refused) handler_.on_close(id, error_code);
}

// The engine answers for the owner (a header list or a body too big) with
// a status and no body. The owner is told the stream closed if it knew of
// it.
void H2Session::refuse(H2Stream& stream, int status) {
  const bool told = stream.told;
  stream.refused = true;
  if (told) handler_.on_close(stream.id, NGHTTP2_NO_ERROR);
  if (stream.unconsumed > 0) nghttp2_session_consume(session_, stream.id, stream.unconsumed);
  stream.unconsumed = 0;
  if (!stream.responded) (void)submit(status, {}, stream, false);
}

// A refused request whose sender is still sending: once the answer is out,
// RST_STREAM(NO_ERROR) tells it to stop (RFC 9113 8.1). Sent any earlier,
// the reset would close the stream before its answer.
void H2Session::stop_sender(H2Stream& stream) {
  if (nghttp2_session_get_stream_remote_close(session_, stream.id) == 0) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_NO_ERROR);
  }
}

bool H2Session::submit(int status, std::span<const H2Header> headers, H2Stream& stream, bool body) {
  if (headers.size() > kMaxResponseHeaders) return false;
  std::array<char, 4> code{};
  const auto [end, ec] = std::to_chars(code.data(), code.data() + 3, status);
  if (ec != std::errc() || end != code.data() + 3) return false;
  std::array<nghttp2_nv, kMaxResponseHeaders + 1> fields;
  fields[0] = field(":status", std::string_view(code.data(), 3));
  for (std::size_t i = 0; i < headers.size(); ++i) fields[i + 1] = field(headers[i].name, headers[i].value);
  nghttp2_data_provider provider{};
  provider.source.ptr = &stream;
  provider.read_callback = H2Callbacks::read_data;
  if (nghttp2_submit_response(session_, stream.id, fields.data(), headers.size() + 1, body ? &provider : nullptr) !=
      0) {
    return false;
  }
  stream.responded = true;
  stream.streaming = body;
  // A streamed body takes its turn with the connection's other streams
  // (RFC 9218's incremental): nghttp2 otherwise sends the oldest stream
  // with data first, every time, so behind a socket that stays full the
  // newest streams of a busy connection starved until their queues passed
  // send.budget_* and their policy cut them off. The client's own priority
  // signal does not undo it: one subscriber's stream is worth another's.
  if (body) {
    const nghttp2_extpri in_turn{NGHTTP2_EXTPRI_DEFAULT_URGENCY, 1};
    (void)nghttp2_session_change_extpri_stream_priority(session_, stream.id, &in_turn, 1);
  }
  return true;
}

bool H2Session::respond(std::int32_t id, int status, std::span<const H2Header> headers, bool body) {
  H2Stream* stream = find(id);
  return stream != nullptr && !stream->responded && !stream->refused && submit(status, headers, *stream, body);
}

void H2Session::send_continue(std::int32_t id) {
  H2Stream* stream = find(id);
  if (stream == nullptr || stream->responded || stream->refused) return;
  const nghttp2_nv status = field(":status", "100");
  (void)nghttp2_submit_headers(session_, NGHTTP2_FLAG_NONE, id, nullptr, &status, 1, nullptr);
}

conn::OutQueue* H2Session::queue(std::int32_t id) {
  H2Stream* stream = find(id);
  return stream != nullptr && !stream->refused ? &stream->queue : nullptr;
}

void H2Session::wake(std::int32_t id) {
  H2Stream* stream = find(id);
  if (stream == nullptr || !stream->deferred) return;
  stream->deferred = false;
  nghttp2_session_resume_data(session_, id);
}

void H2Session::finish(std::int32_t id) {
  H2Stream* stream = find(id);
  if (stream == nullptr) return;
  stream->ending = true;
  wake(id);
}

void H2Session::stop_sender_after_answer(std::int32_t id) {
  if (H2Stream* stream = find(id)) stream->stop_sender = true;
}

void H2Session::reset(std::int32_t id, std::uint32_t error_code) {
  if (find(id) != nullptr) nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, error_code);
}

void H2Session::consume(std::int32_t id, std::size_t bytes) {
  H2Stream* stream = find(id);
  if (stream == nullptr) return;
  bytes = std::min(bytes, stream->unconsumed);
  stream->unconsumed -= bytes;
  nghttp2_session_consume(session_, id, bytes);
}

void H2Session::allow(std::int32_t id, const conn::DataAllowance& allowance) {
  H2Stream* stream = find(id);
  if (stream == nullptr) return;
  stream->allowance = allowance;
  stream->held = false;
  // Set aside for want of data or of allowance: what waits there (a probe,
  // frames the new allowance lets go) is asked for again in this flush.
  if (stream->deferred && !stream->queue.empty()) wake(id);
}

bool H2Session::held(std::int32_t id) const {
  const H2Stream* stream = find(id);
  return stream != nullptr && stream->held;
}

std::uint64_t H2Session::sent(std::int32_t id) const {
  const H2Stream* stream = find(id);
  return stream != nullptr ? stream->sent : 0;
}

bool H2Session::watch(std::int32_t id) {
  H2Stream* stream = find(id);
  if (stream == nullptr) return false;
  if (!stream->marks.watching()) stream->marks.start(stream->sent);
  return true;
}

std::optional<conn::Backlog> H2Session::stream_backlog(std::int32_t id, std::uint64_t acked, std::uint64_t consumed,
                                                       std::uint64_t arrived) {
  H2Stream* stream = find(id);
  if (stream == nullptr || !stream->marks.watching()) return std::nullopt;
  return stream->marks.backlog(acked, consumed, arrived, stream->sent);
}

void H2Session::shutdown() {
  if (session_ == nullptr || terminated_) return;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_),
                        NGHTTP2_NO_ERROR, nullptr, 0);
}

std::uint64_t H2Session::ask_ack() {
  if (session_ == nullptr || terminated_) return 0;
  if (ping_unanswered_) {
    ping_wanted_ = true;
    return pings_sent_ + 1;
  }
  return send_ping() ? pings_sent_ : 0;
}

void H2Session::nudge_ack() {
  if (session_ != nullptr && !terminated_ && !ping_unanswered_) (void)send_ping();
}

// The PING's payload is its number, big-endian.
bool H2Session::send_ping() {
  std::uint8_t opaque[8];
  const std::uint64_t number = pings_sent_ + 1;
  for (int i = 0; i < 8; ++i) opaque[i] = static_cast<std::uint8_t>(number >> (56 - 8 * i));
  if (nghttp2_submit_ping(session_, NGHTTP2_FLAG_NONE, opaque) != 0) return false;
  pings_sent_ = number;
  ping_unanswered_ = true;
  meter_.expect_ping_ack();
  return true;
}

void H2Session::on_ping_answer(const std::uint8_t* opaque) {
  std::uint64_t number = 0;
  for (int i = 0; i < 8; ++i) number = number << 8 | opaque[i];
  // An answer to no PING of ours (the peer's own, or a forged one) is not
  // taken for a read.
  if (!ping_unanswered_ || number != pings_sent_) return;
  ping_unanswered_ = false;
  pings_answered_ = number;
  if (std::exchange(ping_wanted_, false) && !terminated_) (void)send_ping();
}

void H2Session::terminate(std::uint32_t error_code) {
  terminated_ = true;
  nghttp2_session_terminate_session(session_, error_code);
}

// nghttp2 gave up on the session (a fatal error: our memory cap, its own
// flood limits, a bad preface) and its state may not be used again. The
// peer still gets an answer: a GOAWAY made here, the last bytes sent.
void H2Session::abandon(int library_error) {
  end_.library_error = library_error;
  terminated_ = abandoned_ = true;
  std::uint32_t code = NGHTTP2_PROTOCOL_ERROR;
  if (library_error == NGHTTP2_ERR_NOMEM || library_error == NGHTTP2_ERR_FLOODED ||
      library_error == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS) {
    code = NGHTTP2_ENHANCE_YOUR_CALM;
  } else if (library_error == NGHTTP2_ERR_CALLBACK_FAILURE) {
    code = NGHTTP2_INTERNAL_ERROR;
  }
  // Out of memory: the debug data names the limit ("over
  // limits.connection_bytes"), for the client's logs.
  if (library_error == NGHTTP2_ERR_NOMEM && !memory_.refused_by().empty()) end_.memory_limit = memory_.refused_by();
  const std::string debug = library_error == NGHTTP2_ERR_NOMEM && !end_.memory_limit.empty()
                                ? "over " + std::string(end_.memory_limit)
                                : std::string();
  const std::uint32_t last_stream =
      session_ != nullptr ? static_cast<std::uint32_t>(nghttp2_session_get_last_proc_stream_id(session_)) : 0;
  const std::size_t length = 8 + debug.size();
  std::string frame = {0, static_cast<char>(length >> 8), static_cast<char>(length & 0xff), NGHTTP2_GOAWAY, 0, 0, 0, 0, 0};
  for (const std::uint32_t word : {last_stream, code}) {
    for (int shift = 24; shift >= 0; shift -= 8) frame.push_back(static_cast<char>((word >> shift) & 0xff));
  }
  frame += debug;
  output_.append_raw(frame);
  end_.goaway_sent = true;
  end_.error_code = code;
}

void H2Session::release_closed() {
  if (flushing_) return;
  for (std::size_t i = 0; i < streams_.size();) {
    if (!streams_[i]->closed) {
      ++i;
      continue;
    }
    // As many spent streams are kept as may be open at once, so that a
    // client keeping its streams busy (a batch of POSTs) reuses them all;
    // each keeps at most kRestingStorage of headers, and its charge.
    H2Stream& spent = *streams_[i];
    spent.trim();
    if (spare_.size() < limits_.max_concurrent_streams && charge(spent)) {
      spare_.push_back(std::move(streams_[i]));
    } else {
      drop(std::move(streams_[i]));
    }
    streams_[i] = std::move(streams_.back());
    streams_.pop_back();
  }
}

H2Stats H2Session::stats() const {
  std::size_t charged = memory_.charged();
  for (const auto* list : {&streams_, &spare_}) {
    for (const auto& stream : *list) charged += stream->charged;
  }
  H2Stats stats;
  stats.open_streams = open_streams_;
  stats.library_bytes = memory_.held();
  stats.library_peak = memory_.peak();
  stats.library_allocations = memory_.allocations();
  stats.charged_bytes = account_ != nullptr ? charged : 0;
  stats.streams_refused_for_memory = streams_refused_;
  stats.pending_bytes = output_.pending_bytes();
  stats.frames_metered = meter_.frames();
  stats.frames_counted = meter_.counted();
  return stats;
}

}  // namespace sluice::transport
