#include "session/h2_connection.hpp"

#include "log/access.hpp"
#include "session/flush_metrics.hpp"
#include "session/services.hpp"
#include "session/shared_routes.hpp"
#include "session/session.hpp"
#include "session/sse_stream.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

namespace {

long long since_ms(io::Loop::Clock::time_point now, io::Loop::Clock::time_point then) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count();
}

// A WebSocket (extended CONNECT) or an SSE stream: what the client's end
// ends, before it opened as after.
bool asks_for_stream(const transport::H2Request& request) {
  if (request.method == "CONNECT") return true;
  if (request.method != "GET") return false;
  return event_stream_path(request.path.substr(0, request.path.find('?')));
}

}  // namespace

H2Connection::H2Connection(Session& session)
    : session_(session),
      services_(session.services()),
      h2_(std::make_unique<transport::H2Session>(*this, services_.h2_limits(), &session.memory())),
      exchanges_(services_.h2_limits().max_concurrent_streams, services_.pool(), services_.h2_bodies()),
      joined_(&session.memory()),
      quiet_since_(session.loop().now()) {
  session_.want_flush();  // the server's SETTINGS go out first
}

// The streams let go of their topics before the engine goes; the engine's
// goodbye to each stream (on_close) then finds nothing left to do.
H2Connection::~H2Connection() {
  on_closed();
  exchanges_.release_retired();
  h2_.reset();
}

void H2Connection::on_input(std::string& input) {
  if (ending_ || !h2_) {
    input.clear();
    return;
  }
  const transport::H2Status status = h2_->receive(input, session_.loop().now());
  input.clear();
  after_engine(status);
}

bool H2Connection::on_peer_eof() {
  input_ended_ = true;
  return owes_answers();
}

bool H2Connection::owes_answers() {
  bool owes = false;
  exchanges_.for_each([&owes](H2Exchange& exchange) {
    const bool decision = exchange.waits_for_authorization() && !asks_for_stream(exchange.waiting->request());
    // A WebSocket's messages waiting for their decision (or its own hold).
    const bool messages = exchange.ws && !exchange.outlet->ended() && exchange.ws->on_peer_eof();
    owes = owes || exchange.awaiting_broker || decision || messages;
  });
  return owes;
}

void H2Connection::end_if_owed_nothing() {
  if (input_ended_ && !session_.ended() && !owes_answers()) session_.close_after_flush(conn::CloseReason::peer);
}

std::uint64_t H2Connection::ask_reader() { return h2_ ? h2_->ask_ack() : 0; }

conn::AnswerInbox& H2Connection::answer_inbox() { return session_; }

void H2Connection::after_engine(transport::H2Status status) {
  exchanges_.release_retired();
  // PINGs answered: the gates whose asks they answer are told.
  if (h2_ && h2_->acks_answered() != pings_told_) {
    pings_told_ = h2_->acks_answered();
    const io::Loop::Clock::time_point arrived = session_.input_arrival();
    exchanges_.for_each([&](H2Exchange& exchange) {
      if (exchange.outlet != nullptr) exchange.outlet->pings_answered(pings_told_, arrived);
    });
  }
  if (status == transport::H2Status::failed) return session_.close_now(conn::CloseReason::protocol);
  // A GOAWAY is queued (a flood, a protocol error, the peer's own GOAWAY):
  // it goes out, then the connection closes (write_queued()).
  if (status == transport::H2Status::closing) ending_ = true;
  if (ending_ || h2_->wants_write()) session_.want_flush();
}

conn::FlushResult H2Connection::write_queued(conn::Writer& writer, conn::OutQueue& queue,
                                             conn::DataAllowance allowance) {
  // The connection's own queue holds nothing once it speaks HTTP/2; were a
  // reply of the request phase still there, it would go first.
  if (!queue.empty()) {
    const conn::FlushResult before = queue.flush(writer, allowance);
    if (before.status != conn::FlushStatus::drained) return before;
  }
  if (!h2_) return {conn::FlushStatus::drained};
  // The streams' queues are the socket's data lane: one flush, one tally.
  FlushTally tally;
  exchanges_.for_each([&tally](H2Exchange& exchange) {
    if (exchange.outlet != nullptr) tally.before(exchange.outlet->queue());
  });
  const conn::FlushResult result = h2_->flush(writer);
  const io::Loop::Clock::time_point now = io::Loop::Clock::now();  // as before_flush()'s
  exchanges_.for_each([&](H2Exchange& exchange) {
    H2StreamOutlet* outlet = exchange.outlet.get();
    if (outlet == nullptr) return;
    outlet->end_round(result.status, h2_->held(exchange.id));
    tally.after(outlet->queue());
    if (outlet->gated()) outlet->flushed(now, result.status, h2_->sent(exchange.id), h2_->held(exchange.id));
  });
  tally.record(services_.metrics(), result.calls);
  exchanges_.release_retired();
  if (result.status == conn::FlushStatus::drained && (h2_->done() || (ending_ && !h2_->wants_write()))) {
    session_.close_after_flush(conn::CloseReason::protocol);
  }
  return result;
}

void H2Connection::before_flush() {
  // The gates are told when the flush runs, not when its tick started
  // (conn::Connection::flush).
  const io::Loop::Clock::time_point now = io::Loop::Clock::now();
  bool gate_holds = false;
  exchanges_.for_each([&](H2Exchange& exchange) {
    H2StreamOutlet* outlet = exchange.outlet.get();
    if (outlet != nullptr && outlet->gated() && h2_) {
      h2_->allow(exchange.id, outlet->plan_flush(now, h2_->sent(exchange.id)));
      gate_holds = gate_holds || outlet->data_held();
    }
    if (exchange.sse) exchange.sse->before_flush();
    if (exchange.ws) exchange.ws->before_flush();
  });
  // A gate holding a stream while the reader's kernel has not acknowledged
  // what it was sent may be waiting out a delayed ACK, not the reader: a
  // fast reader lost the frames of its first 40 ms to `latest` so. The
  // PING goes in this flush; its answer brings the ACK at once.
  if (gate_holds && socket_backlog_ && socket_backlog_->unacknowledged()) h2_->nudge_ack();
}

// The connection wrote all it could; a stream whose own queue is empty may
// send what waited for room (a notice of drops).
void H2Connection::on_drained() {
  exchanges_.for_each([](H2Exchange& exchange) {
    if (exchange.outlet == nullptr || !exchange.outlet->queue().empty()) return;
    if (exchange.sse) exchange.sse->on_drained();
    if (exchange.ws) exchange.ws->on_drained();
  });
}

// The connection's write drew on its streams' queues.
void H2Connection::on_flushed() {
  exchanges_.for_each([](H2Exchange& exchange) {
    if (exchange.sse) exchange.sse->on_flushed();
    if (exchange.ws) exchange.ws->on_flushed();
  });
}

void H2Connection::tick(io::Loop::Clock::time_point now) {
  if (!h2_) return;
  const auto& config = services_.config();
  // A request head begun and left unfinished holds everything behind it on
  // the connection: the request timeout bounds it, as over HTTP/1.1,
  // whatever streams are open or were served before.
  if (const auto head = h2_->head_since(); head && !ending_ && since_ms(now, *head) > config.handshake_timeout_ms) {
    h2_->end_for_slow_head();
    ending_ = true;
    session_.want_flush();
    return;
  }
  exchanges_.for_each([&](H2Exchange& exchange) {
    if (exchange.waiting) exchange.waiting->round().sweep(now);  // auth.callback_timeout_ms
    // A WebSocket's pings, pong deadline and credentials.
    if (exchange.ws && !exchange.outlet->ended()) exchange.ws->tick(now);
    // An event stream whose first bytes wait for its topic's place, or
    // whose credentials expired.
    if (exchange.sse) exchange.sse->tick(now);
    // A body not whole within the request timeout, as over HTTP/1.1: else
    // a client that never ends its streams would keep their blocks.
    if (exchange.posting && since_ms(now, exchange.posting_since) > config.handshake_timeout_ms) {
      refuse_post(exchange,
                  {.status = 408, .body = "the request body did not come whole within timeouts.handshake_ms\n"});
    }
    H2StreamOutlet* outlet = exchange.outlet.get();
    if (outlet != nullptr) (void)outlet->queue().look_behind();
    // A stream that was to end (a slow consumer cut off) behind a window
    // its client keeps shut is not waited for.
    if (outlet != nullptr && outlet->closing() && !outlet->closed() &&
        since_ms(now, outlet->closing_since()) > config.linger_timeout_ms) {
      outlet->close_now(conn::CloseReason::timeout);
    }
  });
  if (!exchanges_.empty()) {
    quiet_since_ = now;
    return;
  }
  // A connection with no stream open is held only this long: the request
  // timeout until its first request, the keep-alive timeout after.
  const long long limit = served_any_ ? config.idle_timeout_ms : config.handshake_timeout_ms;
  if (!ending_ && since_ms(now, quiet_since_) > limit) {
    h2_->shutdown();
    ending_ = true;
    session_.want_flush();
  }
}

// Each stream on its own: one whose reader takes its frames stays, even
// beside one shed on the same connection. (A client that leaves the
// connection's window shut stalls them all, and all are behind.)
std::size_t H2Connection::shed_behind(std::uint32_t looks) {
  std::size_t shed = 0;
  exchanges_.for_each([&](H2Exchange& exchange) {
    if (exchange.sse) shed += exchange.sse->shed_behind(looks);
    if (exchange.ws) shed += exchange.ws->shed_behind(looks);
  });
  if (shed != 0) session_.want_flush();
  return shed;
}

// The server is stopping: GOAWAY, and every stream ends once what is
// queued for it has gone.
void H2Connection::shutdown() {
  if (!h2_) return;
  h2_->shutdown();
  ending_ = true;
  exchanges_.for_each([](H2Exchange& exchange) {
    // An SSE stream's goodbye, as over HTTP/1.1: the `retry:` hint, or the
    // 503 of a stream whose HEADERS wait for its topics' place (which would
    // otherwise wait, unanswered, for timeouts.linger_ms and a reset).
    if (exchange.sse) exchange.sse->shutdown();
    if (exchange.ws) exchange.ws->shutdown();  // a close frame (1001) first
    if (exchange.outlet) exchange.outlet->close_after_flush(conn::CloseReason::shutdown);
  });
}

void H2Connection::on_closed() {
  exchanges_.for_each([this](H2Exchange& exchange) { let_go(exchange); });
  exchanges_.retire_all();
  body_bytes_ = 0;
}

void H2Connection::on_close(std::int32_t stream, std::uint32_t) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange == nullptr) return;
  let_go(*exchange);
  body_bytes_ -= exchange->body.held_bytes();
  // Reused once the engine call under way has returned.
  exchanges_.retire(*exchange);
}

void H2Connection::on_body_too_large(std::int32_t stream, std::size_t max_body) {
  ReplyText text;
  const Response refusal = body_over_max_body(max_body, text);
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange != nullptr && exchange->posting) return refuse_post(*exchange, refusal);
  reply(stream, refusal);
}

void H2Connection::on_headers_too_large(std::int32_t stream, bool fields, std::size_t limit) {
  ReplyText text;
  reply(stream, h2_headers_over_limit(fields, limit, text));
}

void H2Connection::each_view(const std::function<void(const View&)>& visit) const {
  visit(view());
  exchanges_.for_each([&](const H2Exchange& exchange) {
    if (exchange.sse != nullptr) visit(exchange.sse->view());
    if (exchange.ws != nullptr) visit(exchange.ws->view());
  });
}

// A ConnectionRef's frame for the WebSocket on `stream`; false (counted
// as a send to a closed connection) when that stream has gone.
bool H2Connection::on_posted(std::int32_t stream, buf::FrameRef& frame) {
  H2Exchange* exchange = exchanges_.find(stream);
  if (exchange == nullptr || !exchange->ws || exchange->outlet->ended()) return false;
  const bool taken = exchange->ws->on_posted(stream, frame);
  session_.want_flush();
  return taken;
}

void H2Connection::stream_output(std::int32_t stream) {
  h2_->wake(stream);
  session_.want_flush();
}

std::unique_ptr<conn::BacklogSource> H2Connection::watch_stream(std::int32_t stream, std::size_t padding_per_second) {
  if (!h2_ || session_.socket_fd() < 0 || !h2_->watch(stream)) return nullptr;
  if (!socket_backlog_) {
    socket_backlog_ = std::make_unique<H2SocketBacklog>(session_.socket_fd(), *h2_, padding_per_second);
    // Its gates ask with PINGs, whose answers are judged by when they came.
    session_.note_input_arrivals();
  }
  return std::make_unique<H2StreamBacklog>(*socket_backlog_, *h2_, stream);
}

void H2Connection::end_stream(std::int32_t stream) {
  h2_->finish(stream);
  session_.want_flush();
}

void H2Connection::reset_stream(std::int32_t stream, std::uint32_t error_code) {
  h2_->reset(stream, error_code);
  session_.want_flush();
}

// The stream is gone: its outlet takes nothing more and its stream lets
// go of its topics. A request whose answer was held (HEADERS waiting for
// a topic's place, a POST for Redis's answer or the rest of its body, or
// a request for an authorization decision) and not given lost its client:
// its line says so (log::kClientGoneStatus).
void H2Connection::let_go(H2Exchange& exchange) {
  if (!exchange.logged_target.empty()) {
    log_held(exchange, log::kClientGoneStatus, "http", exchange.posting ? exchange.body.size() : exchange.posted_bytes);
  }
  if (exchange.waiting && exchange.waiting->round().pending() && services_.logs_access()) {
    const transport::H2Request request = exchange.waiting->request();
    log_request(exchange.id, session_.id(), request.method, request.path, request.header("user-agent"),
                log::kClientGoneStatus, "http", 0);
  }
  if (exchange.waiting) exchange.waiting->round().close();  // a question pending is withdrawn
  if (exchange.awaiting_broker) {  // Redis's answer, when it comes, reaches nobody
    services_.broker_publishes()->cancel(exchange.broker_ticket);
    exchange.awaiting_broker = false;
  }
  if (exchange.outlet) exchange.outlet->gone();
  if (exchange.sse) exchange.sse->on_closed();
  if (exchange.ws) exchange.ws->on_closed();
  if (exchange.peer) exchange.peer->closed();  // on_close, when on_open was called
}

}  // namespace sluice::session
