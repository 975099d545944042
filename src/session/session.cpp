#include "session/session.hpp"

#include "session/flush_metrics.hpp"
#include "session/http_request.hpp"
#include "session/services.hpp"

namespace sluice::session {

// The client's address is shown to the authorizer and the access log only:
// without either it is not looked up.
Session::Session(LoopServices& services, std::unique_ptr<conn::Transport> transport, std::uint64_t id,
                 Door door, std::uint64_t address_tag)
    : Session(services, std::move(transport), id, door, address_tag,
              services.auth_gate().installed() || services.logs_access() ? transport->peer_address() : std::string()) {}

Session::Session(LoopServices& services, std::unique_ptr<conn::Transport>&& transport, std::uint64_t id,
                 Door door, std::uint64_t address_tag, std::string address)
    : Connection(services.loop(), std::move(transport), services.connection_limits()),
      services_(services),
      door_(door),
      peer_(services, std::make_shared<ConnectionState>(services.poster(), services.pool(), id), std::move(address),
            nullptr, address_tag),
      phase_(std::make_unique<HttpRequestPhase>(*this)),
      opened_(io::Loop::Clock::now()) {}

Session::~Session() = default;

void Session::on_input(std::string& input) {
  Phase* const reading = phase_.get();
  phase_->on_input(input);
  replaced_.reset();
  // Bytes the client sent right behind the request that opened a stream
  // (the first WebSocket frames) belong to the stream.
  if (phase_.get() != reading && !input.empty() && !ended()) phase_->on_input(input);
  // The request's bytes are gone: a stream that reads little or nothing (an
  // SSE stream, a subscriber's WebSocket) keeps no buffer sized for them.
  // Nor the request phase's round, nor the queue slots its handshake reply
  // took. Once per connection, so a publishing stream's steady state is
  // untouched.
  if (phase_.get() != reading && input.empty()) {
    std::string().swap(input);
    peer_.let_go_of_own_round();
    give_back_slots_when_drained();
  }
}

void Session::become(std::unique_ptr<Phase> next) {
  replaced_ = std::move(phase_);
  phase_ = std::move(next);
}

void Session::on_closed(conn::CloseReason reason) {
  if (reason == conn::CloseReason::memory) {
    ++services_.counters().memory_closes;
    services_.metrics().memory_closes.add();
  }
  phase_->on_closed();
  peer_.closed();
  services_.owner().retire(*this);
}

void Session::tick(io::Loop::Clock::time_point now) {
  retry_read_for_memory();
  if (closed()) return;
  // Once a sweep, whatever the phase: a stream's reader behind is one that
  // took no data frame since the last (HTTP/2 looks at each stream's own).
  (void)queue().look_behind();
  if (closing()) {
    // A peer that neither reads our last bytes nor closes is not waited for.
    const auto lingered = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_activity()).count();
    if (lingered > services_.config().linger_timeout_ms) close_now(conn::CloseReason::timeout);
    return;
  }
  // A handshake that never completes holds a connection slot: it has the
  // same kind of deadline as a request that never completes, and no reply
  // (there is no channel to send one on yet).
  if (transport_handshaking()) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - opened_).count();
    if (waited > services_.config().tls.handshake_timeout_ms) close_now(conn::CloseReason::timeout);
    return;
  }
  peer_.sweep(now);
  phase_->tick(now);
  rest_if_quiet(now);
}

void Session::shutdown() {
  phase_->shutdown();
  close_after_flush(conn::CloseReason::shutdown);
}

// What a flush carried (flush_metrics.hpp). An HTTP/2 connection's own
// queue is empty: it counts its streams' queues itself.
conn::FlushResult Session::write_queued(conn::Writer& writer, conn::DataAllowance allowance) {
  FlushTally tally;
  tally.before(queue());
  const conn::FlushResult result = phase_->write_queued(writer, queue(), allowance);
  tally.after(queue());
  tally.record(services_.metrics(), result.calls);
  if (result.bytes > 0) phase_->on_flushed();
  return result;
}

bool Session::post(std::int32_t stream, buf::FrameRef frame) { return !ended() && phase_->on_posted(stream, frame); }

}  // namespace sluice::session
