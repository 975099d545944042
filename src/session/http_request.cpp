#include "session/http_request.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "buf/fixed_sink.hpp"
#include "log/access.hpp"
#include "session/admin_desk.hpp"
#include "session/h2_connection.hpp"
#include "session/services.hpp"
#include "session/session.hpp"
#include "session/shared_routes.hpp"
#include "transport/h2_preface.hpp"

namespace sluice::session {

using proto::http1::ParseStatus;

namespace {

proto::http1::Limits charged(proto::http1::Limits limits, buf::MemoryAccount& account) {
  limits.account = &account;
  return limits;
}

}  // namespace

HttpRequestPhase::HttpRequestPhase(Session& session)
    : session_(session),
      services_(session.services()),
      parser_(charged(services_.http_limits(), session.memory())),
      request_started_(session.loop().now()) {}

HttpRequestPhase::~HttpRequestPhase() {
  if (awaiting_publish_) services_.broker_publishes()->cancel(publish_ticket_);
  // Its client went first.
  if (awaiting_publish_ || awaiting_auth_) held_line_.write(log::kClientGoneStatus, session_.loop().now());
  if (listing_ticket_ != 0 && services_.ops().admin() != nullptr) {
    services_.ops().admin()->abandon_connections(listing_ticket_);
  }
}

void HttpRequestPhase::on_input(std::string& input) {
  if (!served_any_) {
    switch (h2_preface(input)) {
      case transport::PrefaceMatch::h2:
        // The admin API's routes are HTTP/1.1's: its listener takes no
        // HTTP/2, by ALPN or by prior knowledge, or its client would reach
        // the public routes.
        if (services_.config().h2.enabled == 0 || session_.door() == Door::admin) {
          refuse_h2c();
          input.clear();
          return;
        }
        handed_over_ = true;
        session_.become(std::make_unique<H2Connection>(session_));
        return;  // the session hands the bytes, preface first, to the new phase
      case transport::PrefaceMatch::need_more:
        return;  // under the request timeout, like a partial request
      case transport::PrefaceMatch::http1:
        break;
    }
  }
  if (!partial_) request_started_ = session_.loop().now();
  // Requests are parsed in place and the bytes they used are erased once:
  // erasing each from the front would move the whole pipelined rest.
  std::size_t used = 0;
  while (!session_.ended() && !handed_over_ && !awaiting_publish_ && !awaiting_auth_ && listing_ticket_ == 0 &&
         !replies_full() &&
         handle_one(std::string_view(input).substr(used), used)) {
  }
  // Read now, before a flush writes part of the lane: a drain resumes it.
  stopped_for_reply_room_ = used < input.size() && replies_full();
  input.erase(0, used);
  // Blank lines before a request are allowed and are not one yet.
  partial_ = !handed_over_ && input.find_first_not_of("\r\n") != std::string::npos;
}

// Before its first request a connection may turn out to speak HTTP/2: TLS
// chose it by ALPN, or a clear-text client opens with the HTTP/2 preface
// (h2c by prior knowledge). A prefix of the preface waits for more bytes
// under the request timeout, like a partial request.
// With HTTP/2 off, a clear-text preface is still told apart, so that its
// client is refused in HTTP/2 (refuse_h2c()); ALPN then never chooses it.
// On the admin listener either is refused so, HTTP/2 on or off.
transport::PrefaceMatch HttpRequestPhase::h2_preface(std::string_view input) const {
  if (services_.config().h2.enabled != 0 && session_.transport_chose_h2()) return transport::PrefaceMatch::h2;
  if (services_.config().tls.enabled()) return transport::PrefaceMatch::http1;
  return transport::match_h2_preface(input);
}

// Nothing the client sent after its preface is read: the GOAWAY names no
// stream as processed, so it may send each request again over HTTP/1.1.
void HttpRequestPhase::refuse_h2c() {
  const std::string_view refusal =
      session_.door() == Door::admin ? transport::kH2AdminHttp11Only : transport::kH2Http11Required;
  buf::FrameRef frames = buf::make_frame(services_.pool(), buf::Lane::control, refusal);
  if (!frames || session_.send_control(std::move(frames)) != conn::EnqueueStatus::ok) {
    return session_.close_now(conn::CloseReason::io_error);
  }
  session_.close_after_flush(conn::CloseReason::peer);
}

bool HttpRequestPhase::replies_full() const {
  // Pipelined requests are answered only while there is room for the reply;
  // the rest wait in the input buffer until the replies have been flushed.
  return session_.queue().control_frames() + 1 >= session_.queue().limits().max_control_frames;
}

bool HttpRequestPhase::on_peer_eof() {
  if (awaiting_auth_ && awaiting_stream_) return false;
  if (awaiting_publish_ || awaiting_auth_ || listing_ticket_ != 0 || stopped_for_reply_room_) return true;
  // What is left unparsed is a request the FIN cut short (a head without
  // its end, a body short of its length): its client may still be reading,
  // and is told rather than left with a close and no word.
  if (partial_ && !session_.ended()) {
    fail(400, "the request ended (the client closed its side) before it was whole");
    parser_.reset();
    log_access({}, {}, {}, 0);
  }
  return false;
}

void HttpRequestPhase::on_drained() {
  if (partial_) session_.resume_input();
}

bool HttpRequestPhase::handle_one(std::string_view input, std::size_t& used) {
  if (input.empty()) return false;
  const proto::http1::ParseResult result = parser_.parse(input);
  switch (result.status) {
    case ParseStatus::need_more:
      // The whole request must fit the receive budget; one that cannot
      // (say, a chunked body with heavy framing) is refused, not stalled,
      // and one whose Content-Length says it cannot, at its head: its
      // client is not asked for a body that could never be taken.
      if (const std::size_t budget = services_.connection_limits().receive_budget;
          input.size() >= budget || parser_.declared_size() > budget) {
        ReplyText text;
        respond(request_over_receive_budget(budget, text));
      } else if (parser_.take_continue()) {
        send_continue();
      }
      return false;
    case ParseStatus::error:
      if (ReplyText text; const std::optional<Response> limit = over_http_limit(result, parser_.limits(), text)) {
        respond(*limit);
      } else {
        // The parser's reason is one fixed line ("bare LF", "more than one
        // Host"): the client learns what to mend, and nothing of the server.
        fail(result.http_status, result.reason);
      }
      parser_.reset();  // the connection closes: its body buffer goes back now
      log_access({}, {}, {}, 0);
      return false;
    case ParseStatus::complete:
      break;
  }
  served_any_ = true;
  answered_status_ = 0;
  const proto::http1::Request& request = parser_.request();
  answering_head_ = request.method == proto::http1::Method::head;
  session_.peer().begin_asking(*this);
  route(request);
  if (session_.peer().auth_pending()) {
    // Parsed again, from the same bytes, when the decision comes.
    awaiting_auth_ = true;
    awaiting_stream_ = asks_for_stream(request);
    log_access(request.method_text, request.target, request.header("User-Agent"), request.body.size());
    parser_.reset();
    return false;
  }
  session_.peer().end_asking();
  log_access(request.method_text, request.target, request.header("User-Agent"), request.body.size());
  used += result.consumed;
  parser_.reset();
  request_started_ = session_.loop().now();
  return true;
}

void HttpRequestPhase::auth_answered() {
  awaiting_auth_ = false;
  // Ending already (its client's FIN ended a stream's request): nothing
  // more is routed, and the client went before its answer.
  if (session_.ended()) return held_line_.write(log::kClientGoneStatus, session_.loop().now());
  held_line_.drop();
  session_.resume_input();
}

void HttpRequestPhase::method_not_allowed(std::string_view allow) {
  const std::string header = "Allow: " + std::string(allow) + "\r\n";
  respond({.status = 405, .body = "method not allowed\n", .extra_headers = header});
}

// A reply that refuses the client (keep_alive false) ends its connection.
void HttpRequestPhase::respond(Response response) {
  // A check answered "later": whatever route() made of it is not sent; the
  // request is routed again once the decision has come.
  if (session_.peer().auth_pending()) return;
  answered_status_ = response.status;
  // Only the reply to the HEAD itself: a refusal of the next request, read
  // before it was whole, has its body.
  response.head_only = std::exchange(answering_head_, false);
  keep_alive_ = keep_alive_ && response.keep_alive;
  response.keep_alive = keep_alive_;
  if (!queue_response(response)) return session_.close_now(conn::CloseReason::io_error);
  if (!keep_alive_) session_.close_after_flush(conn::CloseReason::peer);
}

// The client may wait for this before it sends its body (it asked, with
// Expect: 100-continue): without it each such publish stalls for as long
// as the client waits (a second, for curl).
void HttpRequestPhase::send_continue() {
  constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  if (session_.queue().append_control(kContinue)) return session_.want_flush();
  buf::FrameRef frame = buf::make_frame(services_.pool(), buf::Lane::control, kContinue);
  if (!frame || session_.send_control(std::move(frame)) != conn::EnqueueStatus::ok) {
    session_.close_now(conn::CloseReason::io_error);
  }
}

// A reply rides in the room left in the block of the reply before it when
// that one is still queued: a publisher pipelining hundreds of POSTs then
// gets them answered in one write from a few blocks, where a block each
// would stop its input after send.control_frames replies.
bool HttpRequestPhase::queue_response(const Response& response) {
  char text[512];
  buf::FixedSink sink(text, sizeof text);
  write_response(sink, response);
  if (!sink.failed() && session_.queue().append_control(sink.text())) {
    session_.want_flush();
    return true;
  }
  buf::FrameRef frame = sink.failed() ? make_response(services_.pool(), response)
                                      : buf::make_frame(services_.pool(), buf::Lane::control, sink.text());
  return frame && session_.send_control(std::move(frame)) == conn::EnqueueStatus::ok;
}

// A request that opened a stream got no reply of ours: its status is the
// stream's (101 for a WebSocket, 200 for SSE). A publish waiting for
// Redis's answer is logged with that answer, when it comes (published());
// one waiting for an authorization decision once routed again after it,
// or with 499 when its client goes first.
// The target is redacted by the logger; the body is never passed, only its
// length.
void HttpRequestPhase::log_access(std::string_view method, std::string_view target, std::string_view user_agent,
                                  std::size_t body_bytes) {
  if (!services_.logs_access() || stream_logs_request_) return;
  const bool ws_upgrade = handed_over_ && answered_status_ == 0 && !target.starts_with("/sse") &&
                          !target.starts_with("/dashboard/events");
  const int status = answered_status_ != 0 ? answered_status_ : (ws_upgrade ? 101 : 200);
  const std::string_view transport = !handed_over_ || answered_status_ != 0 ? "http" : (ws_upgrade ? "ws" : "sse");
  log::AccessRecord record{.method = method,
                           .target = target,
                           .status = status,
                           .transport = transport,
                           .peer = session_.peer().address(),
                           .connection = session_.id(),
                           .user_agent = user_agent,
                           .body_bytes = body_bytes};
  if (awaiting_publish_ || awaiting_auth_) return held_line_.hold(*services_.logger(), record, request_started_);
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(session_.loop().now() - request_started_);
  record.duration_us = static_cast<std::uint64_t>(elapsed.count());
  log::log_access(*services_.logger(), record);
}

void HttpRequestPhase::fail(int status, std::string_view reason) {
  ReplyText text;
  respond(malformed(status, text, reason));
}

// The request being read cannot grow the input buffer. Complete requests
// waiting behind unsent replies (or a broker's answer) only wait: the drain
// reads on. A partial one could never complete: the client is told which
// limit stopped it.
void HttpRequestPhase::on_input_refused(buf::ChargeStatus status) {
  if (awaiting_publish_ || replies_full() || session_.ended()) return;
  fail_for_memory(status);
  parser_.reset();
}

void HttpRequestPhase::fail_for_memory(buf::ChargeStatus status) {
  if (status == buf::ChargeStatus::over_server) {
    fail(503, "server memory for requests is full (limits.server_bytes)");
  } else {
    fail(413, "request over this connection's memory (limits.connection_bytes)");
  }
}

void HttpRequestPhase::refuse(hub::HubStatus status) {
  ReplyText text;
  respond(hub_refusal(services_.answer(status), text));
}

void HttpRequestPhase::deny(const AuthOutcome& outcome) {
  ReplyText text;
  respond(denial(outcome, text));
}

void HttpRequestPhase::tick(io::Loop::Clock::time_point now) {
  // The broker bounds the wait (broker.request_timeout_ms); the peer's
  // sweep bounds a decision's (auth.callback_timeout_ms).
  if (awaiting_publish_ || awaiting_auth_) return;
  if (listing_ticket_ != 0) return finish_listing(now);
  if (session_.ended()) return;  // closing already (refuse_h2c()): nothing to time out
  const auto& config = services_.config();
  const auto since = [now](io::Loop::Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now - t).count();
  };
  if ((partial_ || !served_any_) && since(request_started_) > config.handshake_timeout_ms) return fail(408);
  if (!partial_ && served_any_ && since(session_.last_activity()) > config.idle_timeout_ms) {
    session_.close_after_flush(conn::CloseReason::timeout);
  }
}

}  // namespace sluice::session
