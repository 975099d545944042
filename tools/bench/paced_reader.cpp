#include "paced_reader.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "clock.hpp"
#include "h2c_stream.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "sequence_tracker.hpp"
#include "sse_scanner.hpp"
#include "stamp.hpp"
#include "ws_client.hpp"
#include "ws_frame_scanner.hpp"

namespace sluice::bench {

namespace {
// sluiced's notices on /ws/{topic} (dropped, reset) are JSON messages.
constexpr std::string_view kServerNotice = "{\"sluice\":";
}  // namespace

// Folds events of either protocol into the current AgeSlot.
class PacedReader::Handler final : public SseHandler, public WsFrameHandler {
 public:
  Handler(PacedReader& reader, std::uint64_t start) : reader_(reader), start_(start), slot_end_(start + reader.options_.slot_ns) {}

  void on_event(const SseEvent& event) override {
    roll(now_);
    if (event.has_id && last_id_ != 0 && event.id > last_id_ + 1) slot_.gaps += event.id - last_id_ - 1;
    if (event.has_id) last_id_ = event.id;
    // An event without the bench's stamp is the server's own: sluiced's
    // sluice-dropped notice, say.
    if (!record(event.data)) ++reader_.notices_;
  }
  void on_comment(std::string_view) override { ++reader_.notices_; }

  void on_message(bool, std::string_view payload) override {
    roll(now_);
    std::uint32_t index = 0;
    std::uint64_t seq = 0;
    if (payload.starts_with(kServerNotice)) {
      ++reader_.notices_;
      return;
    }
    if (!read_sequence(payload, index, seq)) {
      error_ = "a message without the bench's publisher and sequence";
      return;
    }
    const SequenceTracker::Step step = sequence_.next(index, seq);
    slot_.gaps += step.gaps;
    if (step.out_of_order) ++reader_.order_errors_;
    record(payload);
  }
  void on_ping(std::string_view payload) override {
    if (!append_masked(replies_, proto::ws::Opcode::pong, payload)) error_ = "cannot mask a pong";
  }
  void on_close(std::uint16_t code, std::string_view) override {
    reader_.closed_by_server_ = true;
    if (code == 1005 ? !append_masked(replies_, proto::ws::Opcode::close, {}) : !append_close(replies_, code)) {
      error_ = "cannot answer the close";
    }
  }

  void set_now(std::uint64_t now) { now_ = now; }
  // Closes every slot that ended before `now`.
  void roll(std::uint64_t now) {
    while (now >= slot_end_) {
      slot_.t = static_cast<double>(slot_end_ - start_) / 1e9;
      slot_.mean_ms = slot_.events > 0 ? age_sum_ / static_cast<double>(slot_.events) : 0;
      reader_.slots_.push_back(slot_);
      slot_ = AgeSlot();
      age_sum_ = 0;
      slot_end_ += reader_.options_.slot_ns;
    }
  }
  // WebSocket: pongs and the close answer to write after this read.
  std::string& replies() { return replies_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  // False when `data` carries no stamp.
  bool record(std::string_view data) {
    std::uint64_t stamp = 0;
    if (!read_stamp(data, stamp)) return false;
    const double age_ms = static_cast<double>(now_ > stamp ? now_ - stamp : 0) / 1e6;
    ++slot_.events;
    ++reader_.events_;
    age_sum_ += age_ms;
    slot_.max_ms = std::max(slot_.max_ms, age_ms);
    return true;
  }

  PacedReader& reader_;
  std::uint64_t start_;
  std::uint64_t slot_end_;
  std::uint64_t now_ = 0;
  std::uint64_t last_id_ = 0;
  SequenceTracker sequence_;
  std::string replies_;
  std::string error_;
  AgeSlot slot_;
  double age_sum_ = 0;
};

bool PacedReader::start() {
  std::string first;
  const TlsClient* tls = options_.tls.get();
  if (options_.proto == Proto::ws && !options_.h2c) {
    WsConnection c = ws_connect(channel_, tls, options_.server, options_.path, now_ns() + kHandshakeTimeout,
                                options_.receive_buffer);
    fd_ = c.fd;
    first = std::move(c.leftover);
    error_ = c.error;
  } else {
    fd_ = dial(options_.server, options_.receive_buffer);
    const bool over_tls = tls != nullptr;
    const std::string request =
        options_.h2c ? (options_.proto == Proto::ws ? H2cStream::open_websocket(options_.path, over_tls)
                                                    : H2cStream::open(options_.path, 1, over_tls))
                     : "GET " + options_.path + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";
    if (fd_ < 0) error_ = "cannot connect";
    if (error_.empty()) error_ = channel_.open(fd_, tls, options_.h2c ? HttpVersion::h2 : HttpVersion::http1);
    if (error_.empty() && !channel_.write_all(request)) error_ = "cannot send the request";
  }
  if (!error_.empty()) return false;
  channel_.set_read_ahead(false);
  // A short receive timeout lets the thread notice stop() while idle.
  const timeval tv{0, 100'000};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  thread_ = std::thread([this, first = std::move(first)] { run(first); });
  return true;
}

void PacedReader::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// SSE: takes the response head off the front of `bytes` once it is whole.
// False when it is not a 200.
bool PacedReader::read_head(std::string& bytes, bool& head_done) {
  ReplyHead reply;
  const HeadStatus status = parse_reply_head(bytes, reply);
  if (status == HeadStatus::need_more) return true;
  if (status == HeadStatus::error || reply.status != 200) {
    error_ = "bad stream head";
    return false;
  }
  head_done = true;
  bytes.erase(0, reply.head_size);
  return true;
}

// Reads a little at a time and sleeps to hold the drain rate: the sleep is
// the slow device's decode time, not a wait for another thread. `first`:
// WebSocket frames that came with the 101.
void PacedReader::run(std::string first) {
  const std::uint64_t start = now_ns();
  Handler handler(*this, start);
  SseScanner sse(std::size_t{64} << 20);  // as the WebSocket reader: a 1 MiB frame's event is a little over 1 MiB
  WsFrameScanner ws(std::size_t{64} << 20);
  const bool is_ws = options_.proto == Proto::ws;
  std::string pending = std::move(first);  // bytes not scanned yet; SSE: the head until it is whole
  bool take_first = !pending.empty();
  bool head_done = is_ws || options_.h2c;  // h2c: H2cStream checks the status
  H2cStream h2c;
  char buffer[2048];
  while (!stop_.load(std::memory_order_relaxed) && !closed_by_server_) {
    const ssize_t n = take_first ? 0 : channel_.read(buffer, sizeof buffer);
    const std::uint64_t now = now_ns();
    handler.roll(now);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0 || (n == 0 && !take_first)) {
      closed_by_server_ = n == 0;
      break;
    }
    take_first = false;
    if (options_.h2c) {
      if (!h2c.feed(std::string_view(buffer, static_cast<std::size_t>(n)), pending, handler.replies())) {
        error_ = h2c.error();
        break;
      }
      closed_by_server_ = h2c.ended();
    } else {
      pending.append(buffer, static_cast<std::size_t>(n));
    }
    if (!head_done && !read_head(pending, head_done)) break;
    if (!head_done) continue;
    handler.set_now(now);
    const std::size_t h2_replies = handler.replies().size();  // the engine's acknowledgements, before pongs
    const bool ok = is_ws ? (ws.feed(pending, handler) == WsScanStatus::ok || ws.status() == WsScanStatus::closed)
                          : sse.feed(pending, handler) == ScanStatus::ok;
    pending.clear();
    if (!ok) error_ = "malformed stream: " + (is_ws ? std::string(ws.error()) : sse.bad_line());
    if (error_.empty()) error_ = handler.error();
    if (is_ws && options_.h2c && handler.replies().size() > h2_replies) {
      // A WebSocket stream's answers go as the stream's DATA.
      const std::string answers = handler.replies().substr(h2_replies);
      handler.replies().resize(h2_replies);
      handler.replies() += H2cStream::data(answers);
    }
    if (!error_.empty() || !channel_.write_all(handler.replies())) break;
    handler.replies().clear();
    const auto due = start + static_cast<std::uint64_t>(static_cast<double>(events_) / options_.drain_rate * 1e9);
    if (due > now_ns()) std::this_thread::sleep_for(std::chrono::nanoseconds(due - now_ns()));
  }
  handler.roll(now_ns());
}

}  // namespace sluice::bench
