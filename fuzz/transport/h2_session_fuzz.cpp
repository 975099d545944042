// Fuzzes H2Session the way a connection drives it: the client preface,
// then the input in two chunks (byte 0 picks the split, byte 1 how much a
// flush may write per call), each chunk received and followed by flushes
// into a writer that takes a few bytes at a time. The handler answers
// every request with a body, echoes what it receives and consumes it, so
// that responses, DATA frames, window updates and resets all run.
//
// Invariants, abort() on violation: nghttp2 never holds more than the
// session cap; what a short write leaves pending is at most one round and
// its frame headers; a session that says done() wants to write nothing.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "transport/h2_session.hpp"

namespace {

using namespace sluice;
using namespace sluice::transport;

constexpr std::size_t kCap = 256 * 1024;

void check(bool ok) {
  if (!ok) std::abort();
}

class TrickleWriter final : public conn::Writer {
 public:
  explicit TrickleWriter(std::size_t per_call) : per_call_(per_call) {}
  long writev(const struct iovec* iov, int count) override {
    std::size_t offered = 0;
    for (int i = 0; i < count; ++i) offered += iov[i].iov_len;
    if (offered == 0) return 0;
    return static_cast<long>(offered < per_call_ ? offered : per_call_);
  }

 private:
  std::size_t per_call_;
};

class Echo final : public H2Handler {
 public:
  explicit Echo(buf::Pool& pool) : pool_(pool) {}
  void on_request(const H2Request& request) override {
    session->respond(request.stream, request.path.size() % 7 == 0 ? 404 : 200, {}, request.path.size() % 7 != 0);
    send(request.stream, request.path);
    if (request.end_stream) session->finish(request.stream);
  }
  void on_data(std::int32_t stream, std::string_view bytes) override {
    send(stream, bytes);
    session->consume(stream, bytes.size());
  }
  void on_end(std::int32_t stream) override { session->finish(stream); }
  void on_close(std::int32_t, std::uint32_t) override {}

  H2Session* session = nullptr;

 private:
  void send(std::int32_t stream, std::string_view bytes) {
    conn::OutQueue* queue = session->queue(stream);
    if (queue == nullptr) return;
    (void)queue->push_data(buf::make_frame(pool_, buf::Lane::data, bytes));
    session->wake(stream);
  }
  buf::Pool& pool_;
};

void flush(H2Session& session, std::size_t per_call) {
  TrickleWriter writer(per_call);
  for (int turn = 0; turn < 64 && session.wants_write(); ++turn) {
    if (session.flush(writer).status == conn::FlushStatus::error) return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static buf::Pool pool({.block_count = 1024, .block_size = 256, .reserve = 8, .prefault = false});
  const std::size_t split = 2 + (size - 2) * data[0] / 255;
  const std::size_t per_call = 1 + data[1] * 64u;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Echo echo(pool);
  H2Limits limits;
  limits.max_session_bytes = kCap;
  limits.max_frames_per_second = 200;
  limits.max_body = 4096;
  H2Session session(echo, limits);
  echo.session = &session;
  const auto now = H2Session::Clock::time_point{};
  for (const std::string_view chunk :
       {std::string_view("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), input.substr(2, split - 2), input.substr(split)}) {
    if (session.receive(chunk, now) == H2Status::failed) break;
    flush(session, per_call);
    const H2Stats stats = session.stats();
    check(stats.library_peak <= kCap);
    check(stats.pending_bytes <= 2 * 16384 + 1024);
  }
  check(!session.done() || !session.wants_write());
  return 0;
}
