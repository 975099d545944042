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
// An authorizer that answers later: every check is made in the asking
// round (AuthRound) of the phase handling the request or message, named by
// begin_asking(); the HTTP/1.1 request phase uses the connection's own
// round, a WebSocket stream and each HTTP/2 stream theirs.
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
#include "session/auth_round.hpp"

namespace sluice::session {

class LoopServices;

class Peer final {
 public:
  // `address` is the client's, "IP:PORT" (empty when nobody asks for it).
  // A Peer of one stream among a connection's (a WebSocket on HTTP/2)
  // draws the topics it creates from its connection's `allowance`; a
  // connection's own is tagged with `address_tag` (hub::TopicAllowance).
  Peer(LoopServices& services, std::shared_ptr<ConnectionState> state, std::string address,
       hub::TopicAllowance* allowance = nullptr, std::uint64_t address_tag = 0);
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
  // wait: checks may answer later, and answers are recorded in `round`
  // (by default the connection's own). Called again for the same request
  // after auth_answered(), the recorded answers are given back in order.
  void begin_asking(AuthWaiter& waiter) { begin_asking(own_round(), waiter); }
  void begin_asking(AuthRound& round, AuthWaiter& waiter);
  // The request or message was handled (nothing pending): the round ends.
  void end_asking();
  // The request or message was handled as far as it could be. Answers
  // true when a check of it waits: it stays in its round (which tells its
  // waiter when the decision comes) and checks made from now on are not of
  // it. Otherwise the round ends, as end_asking().
  [[nodiscard]] bool finish_asking();
  // A check of the round being asked waits: what the phase would answer
  // now is not to be sent.
  [[nodiscard]] bool asking_pending() const { return asking_ != nullptr && asking_->pending(); }
  // A check of the connection's own round waits for its decision (or the
  // decision has come and the waiter has yet to hear of it): act on
  // nothing more meanwhile.
  [[nodiscard]] bool auth_pending() const { return round_ && round_->pending(); }
  // The owner's sweep: a decision awaited past auth.callback_timeout_ms in
  // the connection's own round is given up (503).
  void sweep(io::Loop::Clock::time_point now) {
    if (round_) round_->sweep(now);
  }
  // The connection became a stream: the request phase's round is not
  // asked again, and an idle stream keeps no memory for it. Kept while a
  // question of it waits.
  void let_go_of_own_round();

  // The credentials the connection's stream rests on have expired by
  // `now`: those of the request that opened it, or of its latest refresh.
  [[nodiscard]] bool credentials_expired(io::Loop::Clock::time_point now) const {
    return valid_until_ && now >= *valid_until_;
  }
  // When they expire; nullopt when they do not.
  [[nodiscard]] std::optional<io::Loop::Clock::time_point> valid_until() const { return valid_until_; }

  // The connection is becoming a WebSocket: `request` is kept for the
  // stream's later checks when there is an authorizer, its copy charged to
  // `account` (KeptRequest). Refused: nothing is kept, and the stream is
  // not to open.
  [[nodiscard]] buf::ChargeStatus keep_request(const proto::http1::Request& request, buf::MemoryAccount* account);
  // The same, for a copy made (and charged) before this Peer was: an
  // HTTP/2 stream that cannot hold its copy is refused before its Peer
  // is made. `kept` is empty when there is no authorizer.
  void keep_request(KeptRequest&& kept);
  // The connection became a WebSocket on `request.path`: on_open now,
  // on_close when it closes. False when on_open threw: the stream is to
  // close as the server's failure.
  [[nodiscard]] bool opened(const proto::http1::Request& request);
  // A WebSocket on one stream of an HTTP/2 connection starts from the
  // credentials its connection's request presented: their expiry and the
  // application's data the authorizer kept for them.
  void take_credentials(const Peer& connection);
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
  // One check: its recorded answer in the round being asked, or the
  // gate's (`ask`, given where to wait when the round can).
  template <typename Ask>
  AuthOutcome consult(Ask ask);
  // The connection's own round, made at its first request.
  AuthRound& own_round();
  // The request later checks are made against: the upgrade request kept,
  // or none.
  [[nodiscard]] RequestView upgrade_view() const { return upgrade_request_ ? upgrade_request_->view() : RequestView{}; }

  LoopServices& services_;
  std::shared_ptr<ConnectionState> state_;
  std::string address_;
  std::unique_ptr<KeptRequest> upgrade_request_;  // with an authorizer only
  hub::TopicAllowance own_allowance_;
  hub::TopicAllowance& topic_allowance_;  // own_allowance_, or the connection's
  bool opened_ = false;
  std::optional<io::Loop::Clock::time_point> valid_until_;
  std::unique_ptr<AuthRound> round_;  // the connection's own (the HTTP/1.1 request phase), once asked
  AuthRound* asking_ = nullptr;    // the round checks are made in now, if any

  // Keeps the expiry an allowed connect or refresh names (none: none).
  void expire_at(const AuthOutcome& outcome);
};

}  // namespace sluice::session
