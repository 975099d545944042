// Owns: H2Waiting, an HTTP/2 stream whose request waits for an
// authorization decision given later: the stream's own asking round, a
// copy of the request to route again from the start when the decision
// comes, and whether the client finished sending meanwhile.
//
// Only the stream waits: its response is not sent, and its DATA is kept
// unread (not given back to its window, so the client can send at most
// h2.stream_window bytes meanwhile), while the connection's other streams
// are served. The copy is bounded by h2.max_header_list_bytes. A stream
// that closes, or a connection, withdraws the question (AuthRound), and
// auth.callback_timeout_ms bounds the wait (503).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/auth_round.hpp"
#include "sluice/connection_ref.hpp"
#include "transport/h2_types.hpp"

namespace sluice::session {

// Who routes a waiting stream's request again.
class H2WaitOwner {
 public:
  virtual void authorization_answered(std::int32_t stream) = 0;

 protected:
  ~H2WaitOwner() = default;
};

class H2Waiting final : public AuthWaiter {
 public:
  H2Waiting(LoopServices& services, H2WaitOwner& owner) : round_(services), owner_(owner) {}

  [[nodiscard]] AuthRound& round() { return round_; }
  // The question of the request routed in this round waits: the request is
  // kept (its views no longer needed).
  void keep(const transport::H2Request& request);
  // The request kept, its views into this object.
  [[nodiscard]] transport::H2Request request();

  bool client_ended = false;  // END_STREAM arrived while the stream waited
  // The connection's data as this request's own checks left it (its
  // token's identity): other requests of the connection replace it while
  // this one waits, and it is routed again under its own.
  server::UserData user;

 private:
  void auth_answered() override { owner_.authorization_answered(stream_); }

  struct Span {
    std::size_t at = 0;
    std::size_t size = 0;
  };
  Span add(std::string_view part);
  [[nodiscard]] std::string_view at(Span span) const { return std::string_view(text_).substr(span.at, span.size); }

  AuthRound round_;
  H2WaitOwner& owner_;
  std::int32_t stream_ = 0;
  bool end_stream_ = false;
  std::string text_;  // every part of the request, one after another
  Span method_, scheme_, authority_, path_, protocol_;
  std::vector<std::pair<Span, Span>> fields_;
  std::vector<transport::H2Header> views_;  // fields_ as views into text_
};

}  // namespace sluice::session
