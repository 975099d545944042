// Owns: what the application's authorizer is asked (AuthRequest: the
// action, the request, its headers, the client's address, the
// connection's data) and what it answers (AuthDecision: allow, until when
// the credentials hold, or a refusal with 401, 403, 429 or 503 and a
// reason). Server::authorize (server.hpp) says when it is asked and how a
// refusal or an expiry reaches the client.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
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
  [[nodiscard]] int status() const { return status_; }  // 0 when allowed
  [[nodiscard]] const std::string& reason() const { return reason_; }
  [[nodiscard]] std::uint32_t retry_after() const { return retry_after_; }
  [[nodiscard]] const std::string& challenge() const { return challenge_; }
  [[nodiscard]] const std::optional<std::chrono::system_clock::time_point>& expires() const { return expires_; }

 private:
  AuthDecision() = default;

  int status_ = 0;
  std::string reason_;
  std::uint32_t retry_after_ = 0;
  std::string challenge_;
  std::optional<std::chrono::system_clock::time_point> expires_;
};

// Allows or refuses what a client asks (authorization.hpp).
using Authorizer = std::function<AuthDecision(const AuthRequest& request)>;

}  // namespace sluice::server
