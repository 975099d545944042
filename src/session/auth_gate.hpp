// Owns: AuthGate, one loop's door to the application's authorizer: it
// shows the authorizer a request (the action, the topic, the request's
// method, path, query and headers, the client's address, the connection's
// data, the loop's index, and where the connection can wait), counts
// refusals, turns an exception out of the authorizer into a refusal of its
// own, and words the answer the way each protocol sends it (AuthOutcome).
// Without an authorizer every check is allowed at once.
//
// Every check is made where the connection can wait for its answer: the
// request phase before it acts on a parsed request (the request's bytes are
// still in the input buffer), a WebSocket stream before it acts on a
// message. An authorizer that answers later makes the answer "pending";
// the connection (Peer) then holds its input and asks again with the same
// request once the decision has come (pending_auth.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http1.hpp"
#include "proto/ws_close.hpp"
#include "session/counters.hpp"
#include "session/kept_request.hpp"
#include "sluice/authorization.hpp"

namespace sluice::session {

class AuthOutcome {
 public:
  [[nodiscard]] static AuthOutcome allow() { return AuthOutcome(); }
  // The authorizer's answer.
  [[nodiscard]] static AuthOutcome of(const server::AuthDecision& decision);
  // The authorizer failed (threw): a refusal that is the server's fault.
  [[nodiscard]] static AuthOutcome failed();
  // The authorizer will decide later. Not allowed, and worded as a 503 in
  // case a caller that cannot wait sends it as it is.
  [[nodiscard]] static AuthOutcome pending();

  [[nodiscard]] bool allowed() const { return http_status_ == 0; }
  [[nodiscard]] bool is_pending() const { return pending_; }
  // 401, 403, 429, 503, or 500 when the authorizer failed.
  [[nodiscard]] int http_status() const { return http_status_; }
  // 4401, 4403 or 4429 (4000 + the status); 1013 (try again later) for a
  // 503; 1011 when the authorizer failed.
  [[nodiscard]] proto::ws::CloseCode close_code() const;
  // The reason alone (an HTTP reply's body).
  [[nodiscard]] std::string_view reason() const { return std::string_view(text_).substr(reason_at_); }
  // "STATUS reason" (a close reason, a /ws ack's error).
  [[nodiscard]] std::string_view text() const { return text_; }
  // Seconds for Retry-After; 0 for none.
  [[nodiscard]] std::uint32_t retry_after() const { return retry_after_; }
  // WWW-Authenticate's value, for a 401 (empty otherwise).
  [[nodiscard]] std::string_view challenge() const { return challenge_; }
  // Allowed until then (AuthDecision::until); none when it did not say.
  [[nodiscard]] const std::optional<std::chrono::system_clock::time_point>& expires() const { return expires_; }

 private:
  AuthOutcome() = default;
  AuthOutcome(int status, std::string_view reason, std::uint32_t retry_after, std::string_view challenge);

  int http_status_ = 0;
  bool pending_ = false;
  std::string text_;
  std::size_t reason_at_ = 0;
  std::uint32_t retry_after_ = 0;
  std::string challenge_;
  std::optional<std::chrono::system_clock::time_point> expires_;
};

// What a stream adds to a check it makes on its own open connection.
struct StreamAsk {
  std::string_view token;  // a /ws refresh: the new credentials
  bool held = false;       // a topic the stream follows, asked again after a refresh
};

class AuthGate {
 public:
  // Both outlive the gate. `loop` is the loop's index (AuthRequest::loop).
  AuthGate(const server::Authorizer& authorizer, LoopCounters& counters, unsigned loop = 0);
  AuthGate(const AuthGate&) = delete;
  AuthGate& operator=(const AuthGate&) = delete;

  // An authorizer is installed: requests are worth keeping for later checks.
  [[nodiscard]] bool installed() const { return static_cast<bool>(authorizer_); }

  // Asks about `action` on `topic` (empty for connect) for a request as
  // parsed, or one kept from a WebSocket's upgrade. `user` is the
  // connection's data, replaced when the authorizer sets it. `room` is
  // where the connection can wait (null: it cannot; the answer must come
  // now).
  [[nodiscard]] AuthOutcome check(server::Action action, std::string_view topic,
                                  const proto::http1::Request& request, std::string_view peer,
                                  std::atomic<server::UserData>& user, server::detail::AuthWaitRoom* room = nullptr);
  [[nodiscard]] AuthOutcome check(server::Action action, std::string_view topic, const RequestView& request,
                                  std::string_view peer, std::atomic<server::UserData>& user, StreamAsk ask = {},
                                  server::detail::AuthWaitRoom* room = nullptr);
  // A decision given later, as the client is to be told (counted).
  [[nodiscard]] AuthOutcome judge(const server::AuthDecision& decision);
  // The bound on a decision given later: 503 past it.
  [[nodiscard]] std::chrono::milliseconds wait_bound() const { return wait_bound_; }
  void set_wait_bound(std::chrono::milliseconds bound) { wait_bound_ = bound; }

 private:
  const server::Authorizer& authorizer_;
  LoopCounters& counters_;
  unsigned loop_;
  std::chrono::milliseconds wait_bound_{2000};
  std::vector<server::HeaderField> fields_;  // a parsed request's headers as the API names them
};

}  // namespace sluice::session
