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
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hub/hub_types.hpp"
#include "io/loop.hpp"
#include "proto/http1.hpp"
#include "session/auth_gate.hpp"
#include "session/connection_state.hpp"
#include "session/kept_request.hpp"

namespace sluice::session {

class LoopServices;

class Peer {
 public:
  // `address` is the client's, "IP:PORT" (empty when nobody asks for it).
  Peer(LoopServices& services, std::shared_ptr<ConnectionState> state, std::string address);
  // ConnectionRefs that outlive the connection see it closed.
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
  LoopServices& services_;
  std::shared_ptr<ConnectionState> state_;
  std::string address_;
  KeptRequest upgrade_request_;
  hub::TopicAllowance topic_allowance_;
  bool opened_ = false;
  std::optional<io::Loop::Clock::time_point> valid_until_;

  // Keeps the expiry an allowed connect or refresh names (none: none).
  void expire_at(const AuthOutcome& outcome);
};

}  // namespace sluice::session
