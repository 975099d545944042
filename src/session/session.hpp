// Owns: Session, one client connection from its first byte to its close:
// the connection (transport, input buffer, outlet) and the Phase it speaks
// now. It starts as an HTTP/1.1 request phase; a request that opens a
// stream replaces the phase with the stream, and the session forwards the
// connection's events to whichever phase is current.
//
// The loop's owner (the worker) reaches a session only through start(),
// tick(), shutdown() and post(), and its id. The application's view of the
// client (its ConnectionRefs, its data, on_open and on_close) is the Peer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "conn/connection.hpp"
#include "session/peer.hpp"
#include "session/phase.hpp"

namespace sluice::session {

class LoopServices;

// Where a connection came in: the public listener, or the admin API's own
// (whose requests reach the admin routes and nothing else).
enum class Door : std::uint8_t { public_port, admin };

class Session final : public conn::Connection {
 public:
  // `id` is the owner's name for the connection (ConnectionRef);
  // `address_tag` stands for the client's address in the topic book's count
  // of the topics each address's subscriptions made (0: none).
  Session(LoopServices& services, std::unique_ptr<conn::Transport> transport, std::uint64_t id,
          Door door = Door::public_port, std::uint64_t address_tag = 0);
  ~Session() override;

  [[nodiscard]] std::uint64_t id() const { return peer_.state()->id; }
  [[nodiscard]] Door door() const { return door_; }
  [[nodiscard]] LoopServices& services() { return services_; }
  [[nodiscard]] Peer& peer() { return peer_; }
  // What the admin API lists: the phase's view, and when the connection opened.
  void each_view(const std::function<void(const Phase::View&)>& visit) const { phase_->each_view(visit); }
  [[nodiscard]] io::Loop::Clock::time_point opened() const { return opened_; }

  // The owner's sweep: a TLS handshake or a linger that lasts too long,
  // then the phase's own timeouts.
  void tick(io::Loop::Clock::time_point now);
  // Queued data holds the pool: the phase's streams whose reader has been
  // behind for `looks` sweeps are cut off (Phase::shed_behind()).
  std::size_t shed_behind(std::uint32_t looks) { return closed() || closing() ? 0 : phase_->shed_behind(looks); }
  // The server is stopping: the phase says goodbye, then the queue flushes
  // and the connection closes.
  void shutdown();
  // A whole frame another thread encoded for this connection (for its
  // HTTP/2 stream `stream`, when not 0). False when the connection takes
  // none (it is ending, or not a WebSocket).
  bool post(std::int32_t stream, buf::FrameRef frame);

  // Makes `next` the phase from now on. The phase being replaced lives on
  // until the call it is in returns; bytes still buffered go to `next`.
  void become(std::unique_ptr<Phase> next);

 private:
  // `address` is the client's, asked of the transport while it is still ours.
  Session(LoopServices& services, std::unique_ptr<conn::Transport>&& transport, std::uint64_t id, Door door,
          std::uint64_t address_tag, std::string address);

  void on_input(std::string& input) override;
  void on_closed(conn::CloseReason reason) override;
  [[nodiscard]] bool input_held() const override { return phase_->holds_input(); }
  void on_input_refused(buf::ChargeStatus status) override { phase_->on_input_refused(status); }
  void on_peer_eof() override {
    if (!phase_->on_peer_eof()) close_after_flush(conn::CloseReason::peer);
  }
  void before_flush() override { phase_->before_flush(); }
  void on_drained() override { phase_->on_drained(); }
  // The phase's flush, counted in the loop's histograms.
  conn::FlushResult write_queued(conn::Writer& writer, conn::DataAllowance allowance) override;

  LoopServices& services_;
  const Door door_;
  Peer peer_;
  std::unique_ptr<Phase> phase_;
  std::unique_ptr<Phase> replaced_;  // the phase become() took over from, until its call returns
  // Accepted: the TLS handshake deadline counts from here. The clock is
  // read, not the loop's tick time, which is older for a connection
  // accepted before the loop's first tick.
  io::Loop::Clock::time_point opened_;
};

}  // namespace sluice::session
