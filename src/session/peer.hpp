// Owns: Peer, the client at the other end of a connection as the
// application's hooks see it: its address, the ConnectionState behind its
// ConnectionRefs (closed flag, the application's data), the request that
// opened its WebSocket (kept for later checks), and the calls into the
// application (authorize, on_open, on_close). Every phase of the
// connection goes through it, so a stream never needs the connection
// itself.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "hub/hub_types.hpp"
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
};

}  // namespace sluice::session
