// Owns: H2Session, the server side of one HTTP/2 connection over nghttp2:
// bytes from the peer in, stream events out (to an H2Handler), and the
// connection's frames out through a conn::Writer (plain TCP, or TLS).
//
// Sans-IO in spirit: the session never touches a socket or a clock; the
// owner reads and writes, tells it the time, and schedules flushes. What
// it carries:
// - GET and POST requests, and WebSocket over HTTP/2 (extended CONNECT,
//   RFC 8441, announced with SETTINGS_ENABLE_CONNECT_PROTOCOL);
// - each stream's response from its own OutQueue, as DATA frames that
//   point into the queue's pool blocks (NGHTTP2_DATA_FLAG_NO_COPY), many
//   streams' frames gathered into one write (see H2Output);
// - flow control as backpressure: a stream whose window is closed keeps
//   its bytes in its queue, where its slow-consumer policy acts, and the
//   other streams go on;
// - limits (H2Limits): concurrent streams, header list, request body,
//   receive windows, nghttp2's memory, and a flood meter (FrameMeter) whose
//   verdict is GOAWAY(ENHANCE_YOUR_CALM);
// - the memory it holds for the connection, charged to the connection's
//   account (limits.connection_bytes, limits.server_bytes) with the rest
//   of what the client makes the server hold: nghttp2's heap (H2Memory)
//   and each stream's own state. A new stream the account has no room for
//   (its header list at the most) is refused with
//   RST_STREAM(REFUSED_STREAM), which a client may retry, and the
//   connection's other streams go on; an allocation the account refuses
//   all the same ends the session with GOAWAY(ENHANCE_YOUR_CALM), its
//   debug data naming the key.
//
// All calls on the owning loop's thread.
#pragma once

#include <nghttp2/nghttp2.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "conn/out_queue.hpp"
#include "conn/peer_backlog.hpp"
#include "conn/writer.hpp"
#include "transport/h2_frame_meter.hpp"
#include "transport/h2_memory.hpp"
#include "transport/h2_output.hpp"
#include "transport/h2_stream.hpp"
#include "transport/h2_types.hpp"

namespace sluice::transport {

enum class H2Status : std::uint8_t {
  ok,
  closing,  // the session is ending (GOAWAY queued): flush, then close once done()
  failed,   // the session cannot go on: close now
};

// Why a session ended, for logs and tests.
struct H2End {
  bool goaway_sent = false;
  std::uint32_t error_code = 0;  // the GOAWAY's code (NGHTTP2_ENHANCE_YOUR_CALM for a flood)
  int library_error = 0;         // nghttp2's error when it gave up, else 0
  // The key of the memory limit that ended it or refused a stream last
  // (h2.max_session_bytes, limits.connection_bytes, limits.server_bytes).
  std::string_view memory_limit;
};

struct H2Stats {
  std::size_t open_streams = 0;
  std::size_t library_bytes = 0;  // nghttp2's heap for this session
  std::size_t library_peak = 0;
  std::uint64_t library_allocations = 0;
  std::size_t charged_bytes = 0;            // charged to the connection's account: nghttp2's heap and the streams
  std::uint64_t streams_refused_for_memory = 0;  // RST_STREAM(REFUSED_STREAM) for want of account room
  std::size_t pending_bytes = 0;  // round bytes a full socket left behind
  std::uint64_t frames_metered = 0;
  std::uint64_t frames_counted = 0;  // of those, the ones the flood meter counts
};

class H2Session final : private StreamStates {
 public:
  using Clock = std::chrono::steady_clock;

  // `handler` must outlive the session, and so must `account`, what the
  // session's memory is charged to (null: nothing charged). Queues the
  // server's SETTINGS.
  H2Session(H2Handler& handler, const H2Limits& limits, buf::MemoryAccount* account = nullptr);
  // Each stream the handler still holds gets on_close(stream, CANCEL).
  ~H2Session();
  H2Session(const H2Session&) = delete;
  H2Session& operator=(const H2Session&) = delete;

  // False when nghttp2 could not make the session. When the memory
  // account refused it, a GOAWAY(ENHANCE_YOUR_CALM) is still due: flush()
  // writes it, and done() says when it is out.
  [[nodiscard]] bool valid() const { return session_ != nullptr; }

  // The next bytes from the peer, starting with its connection preface.
  // Events reach the handler before this returns.
  [[nodiscard]] H2Status receive(std::span<const char> bytes, Clock::time_point now);

  // Writes what is due: what the last short write left, then rounds of
  // frames until the writer stops taking them or nothing is due. drained:
  // nothing more now; blocked: wait until the transport can take more.
  [[nodiscard]] conn::FlushResult flush(conn::Writer& writer);
  // Frames are due (the owner should schedule a flush).
  [[nodiscard]] bool wants_write() const;
  // Both directions are finished: the owner closes the connection.
  [[nodiscard]] bool done() const;

  // Answers `stream`: ":status" and `headers`. With `body`, DATA follows
  // from the stream's queue until finish(); without, the response ends
  // with its headers. False when the stream is unknown or answered.
  bool respond(std::int32_t stream, int status, std::span<const H2Header> headers, bool body);
  // An interim 100 (Continue) on `stream`, before its response: its client
  // asked for it (Expect: 100-continue) and may wait for it to send its
  // body. Nothing when the stream is unknown or answered.
  void send_continue(std::int32_t stream);
  // The stream's outgoing queue (null when the stream is unknown). After
  // queueing, call wake().
  [[nodiscard]] conn::OutQueue* queue(std::int32_t stream);
  // Bytes were queued on `stream`: make DATA frames of them.
  void wake(std::int32_t stream);
  // Ends the response once its queue has drained (END_STREAM).
  void finish(std::int32_t stream);
  // Once the response of `stream` has ended, a client still sending on it
  // is told to stop with RST_STREAM(NO_ERROR), as the sender of a request
  // the engine refused is: for a refusal the owner answers after the
  // stream opened (a WebSocket's extended CONNECT answered 503).
  void stop_sender_after_answer(std::int32_t stream);
  // Resets the stream (RST_STREAM with `error_code`).
  void reset(std::int32_t stream, std::uint32_t error_code);
  // The owner has taken `bytes` that on_data() handed it: the peer may send
  // that many more.
  void consume(std::int32_t stream, std::size_t bytes);
  // GOAWAY(NO_ERROR): no new streams; open ones may finish.
  void shutdown();
  // When the peer began a request head it has not finished (a frame header
  // cut short, a header block without its end); nullopt when none is under
  // way. Nothing else of the peer's is read until it ends.
  [[nodiscard]] std::optional<Clock::time_point> head_since() const { return meter_.head_since(); }
  // The head under way took too long: GOAWAY(NO_ERROR), and the streams
  // end with the connection, which nothing more of the peer's could reach.
  void end_for_slow_head() { terminate(NGHTTP2_NO_ERROR); }
  // A PING: the peer answers it once it has read every frame before it,
  // and the segment that carries the answer acknowledges what its kernel
  // holds, so a latency gate need not wait out a delayed ACK (up to 40 ms
  // on Linux, for a connection its kernel judges interactive). One goes
  // unanswered at most: asked while one is, the next follows its answer.
  // Returns the number of the PING whose answer comes after every frame
  // sent so far; 0 when none can be sent. Flush to send it.
  std::uint64_t ask_ack();
  // A PING unless one is unanswered (any answer brings the ACK).
  void nudge_ack();
  // A PING went and its answer has not come back.
  [[nodiscard]] bool ack_asked() const { return ping_unanswered_; }
  // The number of the last PING answered (0: none).
  [[nodiscard]] std::uint64_t acks_answered() const { return pings_answered_; }

  // A stream under a latency gate. What `stream`'s queue may start in the
  // flushes from now on: the rest of a frame under way and control frames,
  // then whole data frames as `allowance` lets (counted afresh each flush);
  // a stream whose DATA waited for it is resumed.
  void allow(std::int32_t stream, const conn::DataAllowance& allowance);
  // The allowance left `stream`'s bytes waiting in the last flush.
  [[nodiscard]] bool held(std::int32_t stream) const;
  // Bytes of `stream`'s queue gone into DATA frames since it opened.
  [[nodiscard]] std::uint64_t sent(std::int32_t stream) const;
  // Starts noting where `stream`'s bytes lie in the connection's byte
  // stream, from its next byte on. False when the stream is unknown.
  bool watch(std::int32_t stream);
  // The watched `stream`'s share of the peer's backlog, when the peer's
  // kernel has acknowledged the connection's bytes up to `acked` and its
  // application has read them up to `consumed`, and the path delivers
  // them up to `arrived` within a round trip (offsets into the bytes
  // written()); nullopt when the stream is not watched or gone.
  [[nodiscard]] std::optional<conn::Backlog> stream_backlog(std::int32_t stream, std::uint64_t acked,
                                                            std::uint64_t consumed, std::uint64_t arrived);
  // Bytes of the connection the transport has taken so far.
  [[nodiscard]] std::uint64_t written() const { return output_.written(); }

  [[nodiscard]] H2Stats stats() const;
  [[nodiscard]] const H2End& end() const { return end_; }

 private:
  // What nghttp2 knows: the last stream it opened, and whether it still has
  // one (closed ones it forgets at once).
  [[nodiscard]] std::uint32_t last_opened() const override;
  [[nodiscard]] bool open(std::uint32_t stream) const override;

  friend struct H2Callbacks;

  detail::H2Stream* find(std::int32_t stream) const;
  void open_stream(std::int32_t id);
  // A new stream's admission: room in the account for its header list at
  // the most. False: it is refused with RST_STREAM(REFUSED_STREAM), or,
  // when not even that can be queued, the session is abandoned.
  [[nodiscard]] bool admit_stream(std::int32_t id);
  // Charges (or gives back) the change in what `stream` holds.
  [[nodiscard]] bool charge(detail::H2Stream& stream);
  void drop(std::unique_ptr<detail::H2Stream> stream);
  void note_refusal(buf::ChargeStatus status);
  void on_request(detail::H2Stream& stream, bool end_stream);
  void on_data(std::int32_t id, std::string_view bytes);
  void on_stream_closed(std::int32_t id, std::uint32_t error_code);
  void refuse(detail::H2Stream& stream, int status);
  void stop_sender(detail::H2Stream& stream);
  bool submit(int status, std::span<const H2Header> headers, detail::H2Stream& stream, bool body);
  void release_closed();
  void terminate(std::uint32_t error_code);
  void abandon(int library_error);
  bool start();

  H2Handler& handler_;
  const H2Limits limits_;
  buf::MemoryAccount* const account_;
  H2Memory memory_;
  nghttp2_session* session_ = nullptr;
  FrameMeter meter_;
  detail::H2Output output_;
  std::size_t open_streams_ = 0;
  std::vector<std::unique_ptr<detail::H2Stream>> streams_;  // open, or closed and not yet released
  std::vector<std::unique_ptr<detail::H2Stream>> spare_;    // spent, kept for reuse
  bool flushing_ = false;
  std::uint64_t flushes_ = 0;  // flush() calls so far: a stream's budget is worked out once per flush
  bool terminated_ = false;  // we ended the session: input is no longer read
  bool ping_unanswered_ = false;  // ask_ack()'s PING went, its answer not back
  bool ping_wanted_ = false;      // another follows that answer
  std::uint64_t pings_sent_ = 0;
  std::uint64_t pings_answered_ = 0;
  bool send_ping();
  void on_ping_answer(const std::uint8_t* opaque);
  bool abandoned_ = false;   // nghttp2 failed: only our own last GOAWAY goes out
  bool out_of_memory_ = false;  // a refusal could not be queued: the session is abandoned
  std::uint64_t streams_refused_ = 0;
  H2End end_;
};

}  // namespace sluice::transport
