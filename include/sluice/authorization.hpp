// Owns: what the application's authorizer is asked (AuthRequest: the
// action, the request, its headers, the client's address, the
// connection's data) and what it answers (AuthDecision: allow, until when
// the credentials hold, or a refusal with 401, 403, 429 or 503 and a
// reason, or "later": AuthReply, the handle through which a decision that
// needs time, say another server's, is given once it is known).
// Server::authorize (server.hpp) says when it is asked, where it may answer
// later, and how a refusal or an expiry reaches the client.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sluice/connection_ref.hpp"

namespace sluice::server {

// What a client asks to do.
enum class Action : std::uint8_t {
  connect,    // an HTTP request arrives, before it is routed (every request; topic is empty)
  subscribe,  // a stream joins `topic`: GET /sse, a WebSocket on /ws/{topic}, a /ws subscribe
  publish,    // a client publishes to `topic`: POST /pub/{topic}, a WebSocket on /pub/{topic},
              // the first message of a WebSocket on /ws/{topic}, a /ws publish
  refresh,    // a /ws client presents new credentials (`token`) on its open connection
};

// One header field of a request, as sent.
struct HeaderField {
  std::string_view name;
  std::string_view value;
};

// A request's header fields, in arrival order, duplicates kept.
class Headers {
 public:
  Headers() = default;
  explicit Headers(std::span<const HeaderField> fields) : fields_(fields) {}

  // The first value of field `name` (ASCII case-insensitive), or "".
  [[nodiscard]] std::string_view get(std::string_view name) const;
  [[nodiscard]] std::span<const HeaderField> fields() const { return fields_; }

 private:
  std::span<const HeaderField> fields_;
};

class AuthDecision;

namespace detail {
class PendingAuth;   // one question waiting for its decision (src/session/pending_auth.hpp)
class AuthWaitRoom;  // where a connection can wait for one
}  // namespace detail

// The handle through which an authorizer gives its decision later
// (AuthRequest::answer_later()). Copies share one question. The decision
// may be given on any thread: on the connection's loop (the thread the
// authorizer was called on) it is taken at once; on another (say, the
// authorizer's own thread, waiting for another server) it is handed to the
// loop through its inbox and taken there on the loop's next turn.
class AuthReply {
 public:
  AuthReply() = default;
  explicit AuthReply(std::shared_ptr<detail::PendingAuth> question) : question_(std::move(question)) {}

  // Gives the decision. Taken once: a second call, or a call after the
  // question was withdrawn, does nothing and returns false. From another
  // thread, true means handed to the loop: a question withdrawn before the
  // loop takes it (the client left, the wait bound passed) still drops it,
  // as it would have been dropped a moment later; false also once the
  // server is gone. It reaches the client on a later turn of the loop,
  // never inside this call.
  bool operator()(const AuthDecision& decision) const;
  // The question no longer waits: the connection closed, or no decision
  // came within auth.callback_timeout_ms and the client was answered 503.
  // Any thread.
  [[nodiscard]] bool withdrawn() const;
  // `fn` runs, on the loop's thread, when the question is withdrawn before
  // a decision is given: the place to stop what was started for it (a
  // socket, a timer). A later call replaces it. Called on the loop's
  // thread only (on another it does nothing).
  void on_withdrawn(std::function<void()> fn) const;
  // A handle to a question; an empty one (default, or where the
  // connection cannot wait) takes nothing.
  [[nodiscard]] explicit operator bool() const { return static_cast<bool>(question_); }

 private:
  std::shared_ptr<detail::PendingAuth> question_;
};

// What the authorizer is shown. The views are valid during the call only:
// copy what must be kept (into `user`).
struct AuthRequest {
  Action action;
  std::string_view method;  // "GET", "POST" (for a WebSocket, its upgrade request's)
  std::string_view path;    // as sent, not decoded
  std::string_view query;   // as sent, without the '?'
  std::string_view topic;   // decoded, as the client named it (the hub checks the name after); empty for connect
  std::string_view peer;    // the client's address, "IP:PORT" ("[IPv6]:PORT")
  Headers headers;          // Authorization, Cookie, Origin... (for a WebSocket, its upgrade request's)
  UserData& user;           // the connection's data: read it, or set it (connect and refresh are the places)
  std::string_view token = {};  // refresh: the credentials the client sent in the stream; empty otherwise
  // subscribe: the stream already follows `topic` and asks again because
  // its credentials changed (after a refresh); not a new subscription.
  bool held = false;
  // The index of the loop serving the connection (0 to Server::loops() - 1):
  // per-loop state (a cache, a client of another server) needs no lock.
  unsigned loop = 0;
  // Where the connection can wait for a decision given later; null where
  // it cannot (see answer_later()).
  detail::AuthWaitRoom* wait_room = nullptr;

  // To decide later: take the handle, return AuthDecision::later(), and
  // give the decision through the handle, from any thread, within
  // auth.callback_timeout_ms (past it the client is answered 503 and the
  // handle is withdrawn). An empty handle where the connection cannot wait
  // (can_wait() false): decide now.
  [[nodiscard]] AuthReply answer_later() const;
  // The connection can wait here: every check but refresh and a held
  // subscribe (after a refresh). Over HTTP/2 only the stream that asked
  // waits.
  [[nodiscard]] bool can_wait() const { return wait_room != nullptr; }
};

class AuthDecision {
 public:
  // The longest reason kept; a longer one is cut.
  static constexpr std::size_t kMaxReason = 100;
  // The longest challenge kept: room for a realm, an error code and a
  // whole kMaxReason description.
  static constexpr std::size_t kMaxChallenge = 256;

  [[nodiscard]] static AuthDecision allow() { return AuthDecision(); }
  // A refusal: 401 (who are you?), 403 (not allowed), 429 (too many) or
  // 503 (the authority could not be asked: try again); with a 429 or 503,
  // `retry_after_s` > 0 is sent as Retry-After over HTTP. Any other status
  // is sent as 403. `reason` reaches the client (a reply body, a close
  // reason, an ack's error), so it must not hold a secret; it is kept to
  // one line of printable ASCII, every other byte replaced by '?'.
  [[nodiscard]] static AuthDecision deny(int status, std::string_view reason, std::uint32_t retry_after_s = 0);
  // No decision yet: it comes through the AuthReply the authorizer took
  // with AuthRequest::answer_later(). Returned without a handle taken, it
  // is the authorizer's failure (500, as for an exception).
  [[nodiscard]] static AuthDecision later();

  // With a 401, the WWW-Authenticate value an HTTP refusal carries (say
  // `Bearer realm="app", error="invalid_token"`); "Bearer" when none is
  // given. Kept to printable ASCII like the reason, and kMaxChallenge bytes.
  AuthDecision& with_challenge(std::string_view challenge);
  // With an allow of connect or refresh: the credentials it rests on stop
  // being valid at `when` (a token's exp, plus the clock skew allowed). A
  // stream opened on them ends then unless a refresh moves it: a WebSocket
  // is closed 4401 "401 token expired", an SSE stream ends. Ignored on a
  // refusal and on the other actions.
  AuthDecision& until(std::chrono::system_clock::time_point when);

  [[nodiscard]] bool allowed() const { return status_ == 0; }
  [[nodiscard]] bool is_later() const { return status_ == kLater; }
  [[nodiscard]] int status() const { return status_; }  // 0 when allowed
  [[nodiscard]] const std::string& reason() const { return reason_; }
  [[nodiscard]] std::uint32_t retry_after() const { return retry_after_; }
  [[nodiscard]] const std::string& challenge() const { return challenge_; }
  [[nodiscard]] const std::optional<std::chrono::system_clock::time_point>& expires() const { return expires_; }

 private:
  AuthDecision() = default;
  static constexpr int kLater = -1;

  int status_ = 0;
  std::string reason_;
  std::uint32_t retry_after_ = 0;
  std::string challenge_;
  std::optional<std::chrono::system_clock::time_point> expires_;
};

// Allows or refuses what a client asks, now or later (authorization.hpp).
using Authorizer = std::function<AuthDecision(const AuthRequest& request)>;

}  // namespace sluice::server
