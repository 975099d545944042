// Owns: Peer, the client at the other end of a connection as the
// application's hooks see it: its address, the ConnectionState behind its
// ConnectionRefs (closed flag, the application's data), the request that
// opened its WebSocket (kept for later checks), when the credentials it
// presented stop being valid, and the calls into the application
// (authorize, refresh, on_open, on_close). Every phase of the connection
// goes through it, so a stream never needs the connection itself.
//
// The expiry is one deadline per connection, on the loop's clock: the
// streams compare it with the time of the owner's sweep, which ticks every
// connection anyway (and a WebSocket with each read), so it costs no timer
// of its own, no thread, and nothing per event.
//
// An authorizer that answers later: the phase that can wait (the HTTP/1.1
// request phase, a WebSocket stream) opens an asking round for each
// request or message it handles (begin_asking) and stops acting on it when
// a check comes back pending. The answers of the round are recorded in
// order; when the pending decision arrives, the phase is told on a later
// turn of the loop (never inside the authorizer's call) and handles the
// same request again from the start: each check it makes again is given
// its recorded answer, so the authorizer is asked each question once. One
// question waits at a time, bounded by auth.callback_timeout_ms (503 past
// it, checked by the owner's sweep); a connection that closes first
// withdraws it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/hub_types.hpp"
#include "io/loop.hpp"
#include "proto/http1.hpp"
#include "session/auth_gate.hpp"
#include "session/connection_state.hpp"
#include "session/kept_request.hpp"
#include "session/pending_auth.hpp"

namespace sluice::session {

class LoopServices;

// A phase that can wait for a decision given later.
class AuthWaiter {
 public:
  // The pending decision has come: handle the request or message that was
  // waiting again, from the start (its checks get their recorded answers).
  virtual void auth_answered() = 0;

 protected:
  ~AuthWaiter() = default;
};

class Peer final : private server::detail::AuthWaitRoom,
                   private server::detail::DecisionSink,
                   private io::Deferred {
 public:
  // `address` is the client's, "IP:PORT" (empty when nobody asks for it).
  Peer(LoopServices& services, std::shared_ptr<ConnectionState> state, std::string address);
  // ConnectionRefs that outlive the connection see it closed; a question
  // still pending is withdrawn.
  ~Peer();
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  // Asks the application's authorizer about `action` on `topic` for
  // `request` (AuthGate).
  [[nodiscard]] AuthOutcome authorize(server::Action action, std::string_view topic,
                                      const proto::http1::Request& request);
  // The same, for a stream, showing the request that opened it.
  [[nodiscard]] AuthOutcome authorize(server::Action action, std::string_view topic);
  // A stream's client presents new credentials (a /ws refresh): allowed,
  // they replace the old ones and their expiry is the connection's.
  [[nodiscard]] AuthOutcome refresh(std::string_view token);
  // After a refresh: may the stream go on following `topic`? Not a new
  // subscription (StreamAsk::held).
  [[nodiscard]] AuthOutcome recheck(std::string_view topic);
  // A request or message is about to be handled by `waiter`, which can
  // wait: checks may answer later, and answers are recorded for the round.
  // Called again for the same request after auth_answered(), the recorded
  // answers are given back in order.
  void begin_asking(AuthWaiter& waiter);
  // The request or message was handled (nothing pending): the round ends.
  void end_asking();
  // A check of the round waits for its decision (or the decision has come
  // and the waiter has yet to hear of it): act on nothing more meanwhile.
  [[nodiscard]] bool auth_pending() const { return question_ != nullptr || unheard_; }
  // The owner's sweep: a decision awaited past auth.callback_timeout_ms is
  // given up (503).
  void sweep(io::Loop::Clock::time_point now);

  // The credentials the connection's stream rests on have expired by
  // `now`: those of the request that opened it, or of its latest refresh.
  [[nodiscard]] bool credentials_expired(io::Loop::Clock::time_point now) const {
    return valid_until_ && now >= *valid_until_;
  }

  // The connection became a WebSocket on `request.path`: the request is
  // kept for the stream's later checks (when there is an authorizer), then
  // on_open now, on_close when it closes. False when on_open threw: the
  // stream is to close as the server's failure.
  [[nodiscard]] bool opened(const proto::http1::Request& request);
  // The connection closed: ConnectionRefs see it, then on_close is called
  // if on_open was (an exception out of it is dropped: the connection is
  // gone either way, and the loop serves others).
  void closed();

  [[nodiscard]] const std::shared_ptr<ConnectionState>& state() const { return state_; }
  [[nodiscard]] const std::string& address() const { return address_; }
  // The topics this client may still bring into being, whichever phase or
  // stream names them (topics.max_created_per_connection).
  [[nodiscard]] hub::TopicAllowance& topic_allowance() { return topic_allowance_; }

 private:
  server::AuthReply defer() override;
  void decided(const server::AuthDecision& decision) override;
  void run_deferred() override;
  // One check of the round: its recorded answer, or the gate's (`ask`,
  // given where to wait when the round can).
  template <typename Ask>
  AuthOutcome consult(Ask ask);
  // Lets go of the question waiting, if any (its on_withdrawn runs).
  void withdraw();

  LoopServices& services_;
  std::shared_ptr<ConnectionState> state_;
  std::string address_;
  KeptRequest upgrade_request_;
  hub::TopicAllowance topic_allowance_;
  bool opened_ = false;
  std::optional<io::Loop::Clock::time_point> valid_until_;
  // The asking round (see the banner).
  AuthWaiter* waiter_ = nullptr;
  std::vector<AuthOutcome> answers_;
  std::size_t replay_at_ = 0;
  std::shared_ptr<server::detail::PendingAuth> question_;
  io::Loop::Clock::time_point asked_at_;
  bool unheard_ = false;  // a decision came; the waiter hears of it next turn

  // Keeps the expiry an allowed connect or refresh names (none: none).
  void expire_at(const AuthOutcome& outcome);
};

}  // namespace sluice::session
